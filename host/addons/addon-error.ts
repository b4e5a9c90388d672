/**
 * The fetch proxy's one failure envelope, the protocol's ProxyErrorBody (`@addon-kit/sdk/protocol`):
 * which side failed, a stable code, and whether a retry can help. Rendered as
 * `{"error": {side, code, message, retryable}}` with a non-200 status and never an UPSTREAM_HEADER, so the
 * SDK can tell a proxy failure from an upstream HTTP error.
 */
import { STATUS_CODES } from 'node:http';
import type { ProxyErrorBody, ProxyErrorCode, ProxyErrorSide } from '@addon-kit/sdk/protocol';
import { HostError } from '../errors.ts';

/**
 * A proxy failure: status, side, stable code and whether retrying can help. A HostError like every other
 * failure of the host (its message is the detail); the add-on runtime's error handler renders it as the
 * protocol's envelope instead of the JSON APIs' `{errors: [...]}`.
 */
export class AddonError extends HostError<ProxyErrorCode> {
  declare readonly code: ProxyErrorCode;

  constructor(
    status: number,
    readonly side: ProxyErrorSide,
    code: ProxyErrorCode,
    message: string,
    readonly retryable: boolean,
  ) {
    super({ status, code, title: STATUS_CODES[status] ?? 'Error', detail: message });
  }

  /** The response body. */
  toJSON(): ProxyErrorBody {
    return { error: { side: this.side, code: this.code, message: this.message, retryable: this.retryable } };
  }
}

/** The integrator refused the refresh for good (`invalid_grant`): the person must authorize again. */
export class ReauthorizationRequiredError extends AddonError {
  constructor(message = 'The integrator no longer accepts this authorization; authorize the add-on again') {
    super(401, 'integrator_auth', 'reauthorization_required', message, false);
  }
}

/** The integrator's token endpoint is down, slow or answering nonsense; tokens are untouched. */
export class TokenEndpointUnavailableError extends AddonError {
  constructor(message: string) {
    super(503, 'integrator_auth', 'token_endpoint_unavailable', message, true);
  }
}

/** No finished handshake for this person and installation. */
export class HandshakeRequiredError extends AddonError {
  constructor(side: 'host_auth' | 'integrator_auth' = 'integrator_auth') {
    super(401, side, 'handshake_required', 'Authorize the add-on first', false);
  }
}

/** The proxy's allow-list or limits refuse the call. */
export class PolicyError extends AddonError {
  constructor(
    code: Extract<ProxyErrorCode, 'not_allowed' | 'invalid_request' | 'body_too_large' | 'upstream_refused_address'>,
    message: string,
    status = code === 'body_too_large' ? 413 : code === 'invalid_request' ? 400 : 403,
  ) {
    super(status, 'policy', code, message, false);
  }
}

/** The upstream could not be reached or answered too slowly or too much. */
export class UpstreamError extends AddonError {
  constructor(
    code: Extract<
      ProxyErrorCode,
      'upstream_unreachable' | 'upstream_timeout' | 'upstream_redirect' | 'upstream_response_too_large'
    >,
    message: string,
  ) {
    const status = code === 'upstream_timeout' ? 504 : 502;
    super(status, 'upstream', code, message, code === 'upstream_unreachable' || code === 'upstream_timeout');
  }
}
