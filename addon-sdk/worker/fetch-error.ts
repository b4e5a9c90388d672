/** The one error class of the worker SDK: a TypeError (like fetch's network error) with a typed code. */
import type { FetchFailureCode } from '../protocol/messages.ts';

/** A bridged fetch that did not get an upstream response; `switch (err.code)` narrows. */
export class SdkFetchError extends TypeError {
  override readonly name = 'SdkFetchError';
  constructor(
    readonly code: FetchFailureCode,
    message: string,
    /** The proxy's own code, when the proxy answered. */
    readonly detail: string | undefined = undefined,
    /** Whether trying again later may succeed. */
    readonly retryable: boolean = false,
  ) {
    super(message);
  }
}
