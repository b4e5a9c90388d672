/**
 * One delivery attempt: the signed POST through host/outbound (the address policy and checked lookup of the add-on
 * proxy: no request reaches a private or loopback address unless the operator allows it), at most `timeoutMs` for
 * the whole exchange, the response body kept up to RESPONSE_BODY_LIMIT bytes. Never throws for what the receiver
 * does: a status of any kind, a timeout or a refused address is an AttemptRecord.
 */
import type { IncomingMessage } from 'node:http';
import { OutboundError, sendOutbound, type UpstreamPool } from '../outbound/index.ts';
import type { AttemptRecord } from './event-store/index.ts';

/** Bytes of a receiver's response body kept on the delivery. */
export const RESPONSE_BODY_LIMIT = 4096;

/** The request of one attempt. */
export interface AttemptRequest {
  url: string;
  headers: [string, string][];
  body: string;
  timeoutMs: number;
  allowNonPublic: boolean;
  pool?: UpstreamPool;
}

/** Sends the attempt and records what came back. */
export async function attemptDelivery(request: AttemptRequest): Promise<AttemptRecord> {
  const startedAt = new Date();
  const started = performance.now();
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new OutboundError('timeout', 'the receiver did not answer in time')),
    request.timeoutMs,
  );
  const base = { requestUrl: request.url, requestHeaders: request.headers, requestBody: request.body, startedAt };
  try {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return { ...base, ...noResponse('unreachable'), durationMs: 0 };
    }
    const response = await sendOutbound({
      url,
      method: 'POST',
      headers: request.headers,
      body: Buffer.from(request.body),
      allowNonPublic: request.allowNonPublic,
      // The attempt's own timer (above) is its one time limit, the head included: no second timer per request.
      signal: controller.signal,
      ...(request.pool ? { pool: request.pool } : {}),
    });
    const { text, truncated } = await readLimited(response);
    return {
      ...base,
      responseStatus: response.statusCode ?? 0,
      responseHeaders: response.headers,
      responseBody: text,
      responseTruncated: truncated,
      error: null,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    // The attempt's own time limit ran out (before the head: the abort surfaces as a failed connection).
    const code = controller.signal.aborted ? 'timeout' : error instanceof OutboundError ? error.code : 'unreachable';
    return { ...base, ...noResponse(code), durationMs: Math.round(performance.now() - started) };
  } finally {
    clearTimeout(timer);
  }
}

function noResponse(error: string) {
  return { responseStatus: null, responseHeaders: null, responseBody: null, responseTruncated: false, error };
}

/** The first RESPONSE_BODY_LIMIT bytes of the body; the rest is not waited for (the socket is let go). */
async function readLimited(response: IncomingMessage): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > RESPONSE_BODY_LIMIT) {
      truncated = true;
      response.destroy();
      break;
    }
  }
  const kept = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT);
  // PostgreSQL text holds no U+0000 (host/db/storable-text.ts): a receiver's NUL is kept as U+FFFD.
  return { text: kept.toString('utf8').replaceAll('\u0000', '\uFFFD'), truncated };
}
