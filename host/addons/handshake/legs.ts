/**
 * The two legs' shared checks: starting a leg (a fresh state in cookie and database), checking the state a
 * redirect brings back, and who may connect.
 */
import type { AddonSide } from '@addon-kit/sdk/protocol';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { hostPersonOf } from '../../auth/session.ts';
import type { PersonRecord } from '../../auth/person.ts';
import { describeRefusal, findAccessRefusal, whoCanChange } from '../../oauth/application-access.ts';
import type { AuthorizationState } from '../authorizations/index.ts';
import { findInstallation, type Installation } from '../registry/index.ts';
import { handshakeStateDigest as digest } from './consent.ts';
import { openHandshakeCookie, type HandshakeCookie } from './cookie.ts';
import { HANDSHAKE_TTL_MS, type HandshakeDeps } from './deps.ts';
import { StepFailure } from './step-failure.ts';

/** Which redirect a leg expects back: the host's provider's (leg one) or the integrator's (leg two). */
export type Leg = AddonSide;

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

/**
 * Starts (or restarts) a leg: a fresh state in cookie and database, no consent mark. With `replacing`
 * (the digest of the state being consumed), only if the row still holds that state, consented and
 * unexpired — one statement, so of concurrent requests with one state exactly one gets a new state;
 * the others get undefined.
 */
export async function beginLeg(
  deps: Pick<HandshakeDeps, 'vault' | 'clock'>,
  cookie: HandshakeCookie,
  recordId: string,
  leg: Leg,
  codeVerifier?: string,
  replacing?: string,
): Promise<string | undefined> {
  const { vault, clock } = deps;
  const state = randomBytes(32).toString('base64url');
  const now = clock.now();
  const sealedVerifier = codeVerifier ? vault.seal(recordId, 'handshake_code_verifier_encrypted', codeVerifier) : null;
  const next = { stateHash: digest(state), expiresAt: new Date(now + HANDSHAKE_TTL_MS), sealedVerifier };
  if (
    !(await vault.store.beginLeg(recordId, next, replacing ? { stateHash: replacing, now: new Date(now) } : undefined))
  )
    return undefined;
  cookie.leg = leg;
  cookie.state = state;
  if (codeVerifier) cookie.codeVerifier = codeVerifier;
  else delete cookie.codeVerifier;
  await cookie.save();
  return state;
}

/** A returning redirect whose state checked out. */
export interface CheckedReturn {
  cookie: HandshakeCookie;
  installation: Installation;
  person: PersonRecord;
  recordId: string;
  state: AuthorizationState;
  stateHash: string;
  consented: boolean;
}

/** Steps 3 and 5: the returning state must be this browser's, this person's, the database's, and fresh. */
export async function checkReturn(
  deps: Pick<HandshakeDeps, 'db' | 'vault' | 'clock' | 'config'>,
  req: Request,
  res: Response,
  leg: Leg,
): Promise<CheckedReturn> {
  const { db, vault, clock } = deps;
  const person = hostPersonOf(req);
  const cookie = await openHandshakeCookie(deps.config, req, res);
  const returned = typeof req.query.state === 'string' ? req.query.state : undefined;
  const appId = String(req.params.oauthApplicationId);
  const known =
    cookie.installationId && cookie.personId === person.id && cookie.oauthApplicationId === appId
      ? cookie.installationId
      : undefined;
  const installation = known ? await findInstallation(db, known, person.organization_id) : undefined;
  if (!installation || !cookie.state) {
    throw new StepFailure(
      400,
      'handshake_not_started',
      'No authorization in progress',
      'This browser has no add-on authorization in progress for this application, or it has expired. Start it again from the add-on.',
    );
  }
  const record = await vault.find(installation.id, person.id);
  const fail = (code: string, title: string, detail: string) =>
    new StepFailure(400, code, title, detail, installation.id, record?.state ?? 'uninitialized');
  if (!returned)
    throw fail('state_missing', 'The authorization cannot continue', 'The request carries no state parameter.');
  if (cookie.leg !== leg || !sameSecret(returned, cookie.state))
    throw fail(
      'state_mismatch',
      'The authorization cannot continue',
      'The state parameter does not belong to the authorization this browser started.',
    );
  const row = await vault.store.handshakeOf(installation.id, person.id);
  if (!row || !row.stateHash || !sameSecret(digest(returned), row.stateHash)) {
    throw fail(
      'state_mismatch',
      'The authorization cannot continue',
      'This authorization was replaced by a newer one or already finished.',
    );
  }
  if (!row.expiresAt || row.expiresAt.getTime() <= clock.now()) {
    throw fail('state_expired', 'The authorization expired', 'The authorization took too long.');
  }
  const consented = !!row.consentHash && sameSecret(row.consentHash, row.stateHash);
  return { cookie, installation, person, recordId: row.id, state: record!.state, stateHash: row.stateHash, consented };
}

/**
 * Refuses (403 `access_restricted`) a person the organization's access_mode does not admit to the add-on's
 * OAuth application, read now: the same rule /oauth/authorize applies, checked before the handshake
 * sends the person there and again before the host issues its own grant.
 */
export async function requireAccess(
  deps: Pick<HandshakeDeps, 'db' | 'vault'>,
  person: PersonRecord,
  installation: Installation,
  clientId: string,
): Promise<void> {
  const refusal = await findAccessRefusal(deps.db, { personId: person.id, clientId });
  if (!refusal) return;
  const state = (await deps.vault.find(installation.id, person.id))?.state ?? 'uninitialized';
  const message = `${describeRefusal(refusal)} ${whoCanChange(refusal)}`;
  throw new StepFailure(
    403,
    'access_restricted',
    'You cannot connect this add-on',
    message,
    installation.id,
    state,
    'host',
    false,
    false,
  );
}
