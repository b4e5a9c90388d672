/**
 * A person changes their own password: the current one must be right, the new one long enough; on success
 * every other session of the person is revoked. The session the change was made from stays logged in (it
 * just proved the password, and logging the person out of the page they are on helps nobody); whoever holds
 * a copy of any other session cookie — an old one or a stolen one — is logged out.
 */
import { hashPassword, verifyPassword } from '../crypto/passwords.ts';
import type { Queryable } from '../db/database.ts';
import { passwordHashOf, setPasswordHash } from '../directory/index.ts';
import { revokePersonSessions } from './host-sessions.ts';

/** Shortest and longest new password accepted (characters). */
export const PASSWORD_LENGTH = { min: 12, max: 256 } as const;

/** Why a change was refused, one code per field problem. */
export type PasswordChangeProblem = 'wrong_current_password' | 'too_short' | 'too_long' | 'unchanged';

/** What a change came to: done (and how many other sessions were revoked), or refused. */
export type PasswordChangeResult =
  { ok: true; revokedSessions: number } | { ok: false; problem: PasswordChangeProblem };

/** Checks and stores a new password of `personId`; revokes every session of theirs but `keepSessionId`. */
export async function changePassword(
  db: Queryable,
  change: { personId: string; current: string; next: string; keepSessionId: string | undefined },
): Promise<PasswordChangeResult> {
  if (!(await verifyPassword(change.current, await passwordHashOf(db, change.personId))))
    return { ok: false, problem: 'wrong_current_password' };
  const length = [...change.next].length;
  if (length < PASSWORD_LENGTH.min) return { ok: false, problem: 'too_short' };
  if (length > PASSWORD_LENGTH.max) return { ok: false, problem: 'too_long' };
  if (change.next === change.current) return { ok: false, problem: 'unchanged' };
  const hash = await hashPassword(change.next);
  await setPasswordHash(db, change.personId, hash);
  const revokedSessions = await revokePersonSessions(db, change.personId, { keep: change.keepSessionId });
  return { ok: true, revokedSessions };
}
