/**
 * A Fetch API function over `sendUpstream`, for openid-client's `customFetch`: integrator token requests
 * go through the same keep-alive pool and the same pinned, checked lookup as the fetch proxy — no
 * pre-flight DNS check that a second lookup at connect time could contradict. Failures look like
 * fetch's (a TypeError for the network, the signal's reason for a timeout), except a refused address,
 * which stays the proxy's typed `upstream_refused_address`.
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type * as oidc from 'openid-client';
import { AddonError, PolicyError } from '../addon-error.ts';
import { sendUpstream } from './upstream-request.ts';
import type { UpstreamPool } from '../../outbound/index.ts';

/** Statuses whose responses have no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

async function bytesOf(body: oidc.CustomFetchOptions['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer || body instanceof Uint8Array) return Buffer.from(body as Uint8Array);
  return Buffer.from(await new Response(body).arrayBuffer());
}

/** A fetch toward `url` through the pool, refusing non-public addresses unless `allowNonPublic`. */
export function upstreamFetch(allowNonPublic: boolean, pool?: UpstreamPool): oidc.CustomFetch {
  return async (url, options) => {
    const target = new URL(url);
    try {
      const response = await sendUpstream({
        url: target,
        method: options.method,
        headers: Object.entries(options.headers),
        body: await bytesOf(options.body),
        allowNonPublic,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(pool ? { pool } : {}),
      });
      const headers = new Headers();
      for (let i = 0; i + 1 < response.rawHeaders.length; i += 2)
        headers.append(response.rawHeaders[i]!, response.rawHeaders[i + 1]!);
      const status = response.statusCode ?? 502;
      if (NULL_BODY.has(status)) response.resume();
      const body = NULL_BODY.has(status)
        ? null
        : (Readable.toWeb(response) as WebReadableStream<Uint8Array> as ReadableStream<Uint8Array>);
      return new Response(body, { status, statusText: response.statusMessage ?? '', headers });
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (error instanceof PolicyError && error.code === 'upstream_refused_address') {
        throw new AddonError(
          502,
          'policy',
          'upstream_refused_address',
          `The integrator's token endpoint ${target.origin} is not a public address`,
          false,
        );
      }
      throw new TypeError('fetch failed', { cause: error });
    }
  };
}
