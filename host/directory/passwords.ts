/** A person's stored password digest (crypto/ hashes and verifies; this file only keeps it). */
import type { Queryable } from '../db/database.ts';

/** The password digest of a person: null when they have no password, undefined when there is no such person. */
export async function passwordHashOf(db: Queryable, personId: string): Promise<string | null | undefined> {
  const { rows } = await db.query<{ password_hash: string | null }>('SELECT password_hash FROM people WHERE id = $1', [
    personId,
  ]);
  return rows[0]?.password_hash;
}

/** Stores a new password digest of a person. */
export async function setPasswordHash(db: Queryable, personId: string, hash: string): Promise<void> {
  await db.query('UPDATE people SET password_hash = $2, updated_at = now() WHERE id = $1', [personId, hash]);
}
