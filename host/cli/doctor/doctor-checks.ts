/**
 * The doctor's rows: their ids, what each checks, and the order of the table. The README's list of checks and
 * the tests read these ids; the JSON output carries them as `id`.
 */
export const DOCTOR_CHECKS = {
  'authorize.page': 'GET authorize_url answers 200 with an HTML page',
  'authorize.unknown_client': 'an unknown client_id gets an error page, never a redirect',
  'authorize.unregistered_redirect': 'an unregistered redirect_uri gets an error page, never a redirect to it',
  'completion.advance': "redirect_url sends the person on to the host's advance step with state unchanged",
  'authorize.state': 'sign-in and consent redirect to redirect_uri with a code and state unchanged',
  'token.exchange': 'token_url exchanges a fresh code, client credentials sent the way the host sends them',
  'token.bad_code': 'an unknown code gets 400 invalid_grant',
  'token.wrong_secret': 'a wrong client_secret gets 401 invalid_client',
  'token.code_reuse': 'a code used twice gets invalid_grant',
  'token.pkce': 'a wrong PKCE code_verifier gets invalid_grant',
  'refresh.grant': 'a refresh returns a new access token (required when expires_in is present)',
  'refresh.rotation': 'a rotated refresh token is refused once its successor was used',
  'api.token': 'the API accepts the new token on each allow-listed read route',
  'api.bad_token': 'the API answers a bad token with 401 and WWW-Authenticate: Bearer',
  'config.urls': "every URL of the environment's config resolves and uses https outside development",
} as const;

/** A row's id, e.g. `token.exchange`. */
export type DoctorCheckId = keyof typeof DOCTOR_CHECKS;

/** The outcome of one check. */
export type DoctorStatus = 'pass' | 'fail' | 'skip';

/** One row of the doctor's table. */
export interface DoctorCheck {
  id: DoctorCheckId;
  status: DoctorStatus;
  /** What the doctor saw. */
  detail: string;
  /** What to change when the check failed or was skipped. */
  fix?: string;
}

/** How the host authenticates to the integrator's token endpoint (host/addons/tokens/integrator-client.ts). */
export const HOST_CLIENT_AUTH = 'client_secret_post';

/** A failed check's reason, carried up to the table. */
export class CheckFailed extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}
