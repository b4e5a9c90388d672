/** The add-on lifecycle events received from the host, by event id: what makes the receiver idempotent. */
import type { Queryable } from './sql.ts';

/** One received event. */
export interface ReceivedEvent {
  id: string;
  name: string;
  payload: string;
  receivedAt: Date;
}

/** Stores the event; false when its id was stored before (a repeated delivery: do nothing again). */
export async function recordReceivedEvent(tx: Queryable, event: ReceivedEvent): Promise<boolean> {
  const { rows } = await tx.query<{ id: string }>(
    `INSERT INTO addon_kit_events (id, name, payload, received_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [event.id, event.name, event.payload, event.receivedAt],
  );
  return rows.length === 1;
}
