/**
 * The `http_json` bulk-mail provider: POSTs `{list: {id, name}, people: [{id, first_name, last_name, email}]}`
 * to the organization's configured endpoint. A 2xx answer is a success; anything else (another status,
 * a redirect — never followed —, a network error, a timeout) is a failure with a short reason.
 */
import { isHttpEndpoint, type BulkmailProvider } from './bulkmail-provider.ts';

/** Where and how the http_json provider delivers. */
export interface HttpJsonProviderOptions {
  endpointUrl: string;
  /** Milliseconds before the request is abandoned. */
  timeoutMs?: number;
  /** The fetch to use (tests may pass their own); default: the global fetch. */
  fetch?: typeof fetch;
}

/** Creates the provider for one organization's endpoint. */
export function createHttpJsonBulkmailProvider(options: HttpJsonProviderOptions): BulkmailProvider {
  const doFetch = options.fetch ?? fetch;
  return {
    name: 'http_json',
    async sync(request) {
      if (!isHttpEndpoint(options.endpointUrl))
        return { ok: false, error: 'The configured endpoint is not an http(s) URL' };
      let response: Response;
      try {
        response = await doFetch(options.endpointUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ list: request.list, people: request.people }),
          // A redirect could point anywhere (SSRF); the configured URL is the only target.
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
        });
      } catch (error) {
        const name = (error as { name?: string }).name;
        return {
          ok: false,
          error: name === 'TimeoutError' ? 'The provider did not answer in time' : 'The provider could not be reached',
        };
      }
      await response.body?.cancel().catch(() => {});
      if (response.status >= 200 && response.status < 300) return { ok: true, syncedCount: request.people.length };
      return { ok: false, error: `The provider answered HTTP ${response.status}` };
    },
  };
}
