/** The integrator's own user accounts (scrypt password hashes). */
import { hashPassword, verifyPassword } from './secrets.ts';
import type { Queryable } from './sql.ts';

/** An integrator account (never with its password hash). */
export interface User {
  id: string;
  username: string;
  name: string;
}

/** Creates each user whose username is not taken yet; existing passwords are left alone. */
export async function seedUsers(
  db: Queryable,
  users: { username: string; password: string; name: string }[],
  now: Date,
): Promise<void> {
  for (const user of users) {
    const { rows } = await db.query('SELECT 1 FROM users WHERE username = $1', [user.username]);
    if (rows.length > 0) continue;
    await db.query(
      'INSERT INTO users (username, name, password_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (username) DO NOTHING',
      [user.username, user.name, await hashPassword(user.password), now],
    );
  }
}

/** The user when the password matches; null otherwise (same work either way). */
export async function checkLogin(db: Queryable, username: string, password: string): Promise<User | null> {
  const { rows } = await db.query<User & { password_hash: string }>(
    'SELECT id::text, username, name, password_hash FROM users WHERE username = $1',
    [username],
  );
  const row = rows[0];
  const ok = await verifyPassword(password, row?.password_hash);
  return ok && row ? { id: row.id, username: row.username, name: row.name } : null;
}

/** A user by id. */
export async function findUser(db: Queryable, id: string): Promise<User | null> {
  const { rows } = await db.query<User>('SELECT id::text, username, name FROM users WHERE id = $1', [id]);
  return rows[0] ?? null;
}
