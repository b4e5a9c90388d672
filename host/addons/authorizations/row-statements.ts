/** The store's statements on the row itself: create, read, move its state, mark it excluded, delete, re-seal. */
import type { Queryable } from '../../db/database.ts';
import { COLUMNS, refuseMove, selectRow, type AuthorizationRow, type ReadOptions, type SealedColumn } from './row.ts';
import { sourcesOf, type AuthorizationState } from './states.ts';

/** The row's reads and writes (part of the AuthorizationStore). */
export interface RowStatements {
  /** Creates the row as `uninitialized` when missing; returns it. */
  ensure(installationId: string, personId: string, q?: Queryable): Promise<AuthorizationRow>;
  /** The row of a person and installation. */
  find(installationId: string, personId: string, options?: ReadOptions): Promise<AuthorizationRow | undefined>;
  /** The row by its id. */
  findById(id: string, options?: ReadOptions): Promise<AuthorizationRow | undefined>;
  /** The state of each installation the person has a row for. */
  statesOfPerson(personId: string): Promise<Map<string, AuthorizationState>>;
  /** Moves the row to `to`, refused with IllegalTransitionError when its current state may not. */
  transition(id: string, to: AuthorizationState, q?: Queryable): Promise<void>;
  /**
   * The organization's access_mode leaves the person out: marks the row excluded (once; a completed handshake
   * clears the mark). Returns the row's integrator subject when this call marked it, undefined when it was already
   * marked or never authorized (`uninitialized`) — so the `excluded` event is recorded once.
   */
  markExcluded(id: string, q?: Queryable): Promise<{ subject: string | null } | undefined>;
  /**
   * The person revokes the add-on: the row is deleted (its tokens with it; a new handshake starts from
   * `uninitialized`). Returns what it held for the revocation of the host grant and the `revoked` event, or
   * undefined when there was no row.
   */
  revoke(
    installationId: string,
    personId: string,
    q?: Queryable,
  ): Promise<{ row: AuthorizationRow; subject: string | null } | undefined>;
  /** Re-seals values of a retired key, each only if it still holds the value read (a concurrent write wins). */
  reseal(
    id: string,
    keyId: string,
    columns: readonly { column: SealedColumn; sealed: string; previous: string }[],
    q?: Queryable,
  ): Promise<void>;
}

/** The row's statements over a database (or a transaction, per call through `q`). */
export function rowStatements(db: Queryable): RowStatements {
  return {
    async ensure(installationId, personId, q = db) {
      await q.query(
        'INSERT INTO addon_authorizations (installation_id, person_id) VALUES ($1, $2) ON CONFLICT (installation_id, person_id) DO NOTHING',
        [installationId, personId],
      );
      return (await selectRow(q, 'installation_id = $1 AND person_id = $2', [installationId, personId]))!;
    },
    find: (installationId, personId, options) =>
      selectRow(db, 'installation_id = $1 AND person_id = $2', [installationId, personId], options),
    findById: (id, options) => selectRow(db, 'id = $1', [id], options),
    async statesOfPerson(personId) {
      const { rows } = await db.query<{ installation_id: string; state: AuthorizationState }>(
        'SELECT installation_id::text, state FROM addon_authorizations WHERE person_id = $1',
        [personId],
      );
      return new Map(rows.map((r) => [r.installation_id, r.state]));
    },
    async transition(id, to, q = db) {
      const { rowCount } = await q.query(
        'UPDATE addon_authorizations SET state = $2, updated_at = now() WHERE id = $1 AND state = ANY($3::text[])',
        [id, to, sourcesOf(to)],
      );
      if (rowCount !== 1) await refuseMove(id, to, q);
    },
    async markExcluded(id, q = db) {
      const { rows } = await q.query<{ subject: string | null }>(
        `UPDATE addon_authorizations SET excluded_at = now(), updated_at = now()
         WHERE id = $1 AND excluded_at IS NULL AND state <> 'uninitialized' RETURNING integrator_subject AS subject`,
        [id],
      );
      return rows[0];
    },
    async revoke(installationId, personId, q = db) {
      const { rows } = await q.query<AuthorizationRow & { subject: string | null }>(
        `DELETE FROM addon_authorizations WHERE installation_id = $1 AND person_id = $2
         RETURNING ${COLUMNS}, integrator_subject AS subject`,
        [installationId, personId],
      );
      const found = rows[0];
      if (!found) return undefined;
      const { subject, ...row } = found;
      return { row, subject };
    },
    async reseal(id, keyId, columns, q = db) {
      if (columns.length === 0) return;
      const sets = columns.map((c, i) => `${c.column} = $${i * 2 + 3}`).join(', ');
      const guards = columns.map((c, i) => `${c.column} = $${i * 2 + 4}`).join(' AND ');
      const params = columns.flatMap((c) => [c.sealed, c.previous]);
      await q.query(`UPDATE addon_authorizations SET ${sets}, encryption_key_id = $2 WHERE id = $1 AND ${guards}`, [
        id,
        keyId,
        ...params,
      ]);
    },
  };
}
