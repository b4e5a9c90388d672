/** OAuth 2.0 error responses of the authorization and token endpoints. */
import type { Response } from 'express';

/** RFC 6749 §4.1.2.1 and §5.2 error codes this server returns. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'server_error';

/** An RFC 6749 error; `status` is the token endpoint's HTTP status for it. */
export class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly status = code === 'invalid_client' ? 401 : 400,
    /** The client tried HTTP Basic: a 401 must then challenge for Basic. */
    readonly basicChallenge = false,
  ) {
    super(description);
  }
}

/**
 * Writes a token endpoint error body.
 * @see https://www.rfc-editor.org/rfc/rfc6749#section-5.2
 */
export function sendTokenError(res: Response, error: OAuthError): void {
  if (error.status === 401 && error.basicChallenge)
    res.set('WWW-Authenticate', 'Basic realm="integrator", charset="UTF-8"');
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  res.status(error.status).json({ error: error.code, error_description: error.description });
}
