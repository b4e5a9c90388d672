/**
 * Why an outbound exchange failed before any response head arrived. Never rendered as it is: each caller says it
 * in its own words (the add-on proxy as its typed `{error}` envelope), so this error carries only a stable code.
 */

/** Stable codes of an outbound failure, for `switch (error.code)`. */
export type OutboundErrorCode =
  /** The address (an IP literal, or what the name resolved to) is not public and the call may not reach it. */
  | 'refused_address'
  /** No response head within the exchange's time limit. */
  | 'timeout'
  /** The connection failed (refused, reset, no such name, aborted). */
  | 'unreachable';

/** An outbound exchange that got no response. */
export class OutboundError extends Error {
  constructor(
    readonly code: OutboundErrorCode,
    message: string,
  ) {
    super(message);
  }
}
