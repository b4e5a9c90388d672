-- Webhooks (host/webhooks/README.md): a delivery's request body is the event's own body for that attempt
-- (deliveryBody of the event's uuid, name, payload and organization with the delivery's attempt number), so the
-- worker no longer writes it into every delivery row: NULL means "rebuilt on read" (host/webhooks/event-store/reads.ts).
-- Rows written before keep theirs.
ALTER TABLE webhook_deliveries ALTER COLUMN request_body DROP NOT NULL;
