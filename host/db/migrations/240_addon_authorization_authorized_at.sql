-- When the person last completed the add-on's handshake (step 6: the authorization became `ready`), for the account
-- page's "Authorized" column, which showed the row's creation: the start of the first handshake. Null while no
-- handshake has completed. Rows ready before this migration take their last update, the closest time kept.
ALTER TABLE addon_authorizations ADD COLUMN authorized_at timestamptz;
UPDATE addon_authorizations SET authorized_at = updated_at WHERE state = 'ready';
