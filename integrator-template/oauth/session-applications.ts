/**
 * In development an integrator serves any add-on of the host: the completion URL `/addon/complete/{id}` names the
 * host OAuth application a handshake is for, and this browser session remembers it, so the authorize request that
 * follows (step 4) may redirect to exactly `{hostBaseUrl}/addons/authorizations/{id}` — an exact redirect URI,
 * registered for this session by the step that precedes it, never a pattern.
 */
import type { IntegratorConfig } from '../config.ts';
import type { Session } from '../session.ts';

/** How many applications a session remembers (the newest; a person rarely authorizes more at once). */
export const SESSION_APPLICATIONS_LIMIT = 10;

/** An application id as a completion URL carries it (a positive integer, no leading zero). */
export function applicationIdParam(value: unknown): number | undefined {
  return typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : undefined;
}

/** The host's step-5 callback for an application: the redirect URI the host sends at step 4. */
export function hostCallback(config: IntegratorConfig, applicationId: number): string {
  return `${config.hostBaseUrl}/addons/authorizations/${applicationId}`;
}

/** Remembers that this session went through the completion of `applicationId`. */
export async function rememberApplication(session: Session, applicationId: number): Promise<void> {
  const seen = (session.applications ?? []).filter((id) => id !== applicationId);
  session.applications = [...seen, applicationId].slice(-SESSION_APPLICATIONS_LIMIT);
  await session.save();
}

/** The callbacks this session may be redirected to besides the clients' registered ones (development only). */
export function sessionCallbacks(config: IntegratorConfig, session: Session): string[] {
  if (config.environment !== 'development') return [];
  return (session.applications ?? []).map((id) => hostCallback(config, id));
}

/** The application a session-learnt callback is for (undefined for any other URI). */
export function sessionApplicationOf(
  config: IntegratorConfig,
  session: Session,
  redirectUri: string,
): number | undefined {
  return (session.applications ?? []).find((id) => hostCallback(config, id) === redirectUri);
}
