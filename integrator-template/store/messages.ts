/** The sample API's records: one message, delivered to each listed person. */
import type { Database } from './sql.ts';

/** A message as the API returns it. */
export interface StoredMessage {
  id: string;
  list_id: string;
  person_ids: string[];
  message: string;
  created_at: string;
}

/** Records a message and one recipient row per person. */
export async function recordMessage(
  db: Database,
  input: { userId: string; clientId: string; listId: string; personIds: string[]; message: string },
  now: Date,
): Promise<StoredMessage> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      'INSERT INTO messages (user_id, client_id, list_id, body, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id::text',
      [input.userId, input.clientId, input.listId, input.message, now],
    );
    const id = rows[0]!.id;
    await tx.query(
      `INSERT INTO message_recipients (message_id, person_id, position)
       SELECT $1, p.person_id, p.position FROM unnest($2::text[]) WITH ORDINALITY AS p(person_id, position)`,
      [id, input.personIds],
    );
    return {
      id,
      list_id: input.listId,
      person_ids: input.personIds,
      message: input.message,
      created_at: now.toISOString(),
    };
  });
}

/** A user's messages, newest first. */
export async function listMessages(db: Database, userId: string, limit = 100): Promise<StoredMessage[]> {
  const { rows } = await db.query<{
    id: string;
    list_id: string;
    body: string;
    created_at: Date;
    person_ids: string[];
  }>(
    `SELECT m.id::text, m.list_id, m.body, m.created_at,
            COALESCE((SELECT array_agg(r.person_id ORDER BY r.position) FROM message_recipients r WHERE r.message_id = m.id), '{}') AS person_ids
       FROM messages m WHERE m.user_id = $1 ORDER BY m.id DESC LIMIT $2`,
    [userId, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    list_id: r.list_id,
    person_ids: r.person_ids,
    message: r.body,
    created_at: new Date(r.created_at).toISOString(),
  }));
}
