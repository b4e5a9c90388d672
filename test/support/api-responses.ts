/**
 * Every response of every API a test host answers through `t.api()`, checked against the OpenAPI
 * document the host serves for it (`/api/v2`, `/current/v2`, `/people/v2`, the OAuth endpoints). The
 * recorder sits in front of the app; the checks run when the host closes, so a test whose request got an
 * undocumented status, a body outside its schema or a missing documented header fails its file.
 * Requests outside every documented operation (an unknown path, a method the API has not) are not API
 * operations and are not checked.
 */
import type { Express } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import supertest from 'supertest';
import { TEST_USER_AGENT } from './constants.ts';
import { createOpenApiValidator, type OpenApiValidator } from './openapi.ts';

/** Where each served document is. */
export const DOCUMENT_URLS = ['/api/v2/open_api', '/current/v2/open_api', '/people/v2/open_api', '/oauth/v2/open_api'];

interface Recorded {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** The app behind a recorder, and the check of what it recorded. */
export interface RecordingApp {
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  /** Checks every recorded API response; resolves to the failures (empty when all are documented). */
  check(): Promise<string[]>;
}

function headersOf(res: ServerResponse): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(res.getHeaders()).map(([k, v]) => [
      k.toLowerCase(),
      Array.isArray(v) ? v.join(', ') : v?.toString(),
    ]),
  );
}

/** Wraps `app` so every response is recorded for `check()`. */
export function recordingApp(app: Express): RecordingApp {
  const recorded: Recorded[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    const keep = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
      );
    };
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      keep(chunk, rest[0]);
      return end(chunk, ...rest);
    }) as typeof res.end;
    res.on('finish', () => {
      recorded.push({ method, url, status: res.statusCode, headers: headersOf(res), body: Buffer.concat(chunks) });
    });
    app(req as never, res as never);
  };
  return {
    handler,
    async check() {
      if (recorded.length === 0) return [];
      const validators: OpenApiValidator[] = [];
      for (const url of DOCUMENT_URLS) {
        const res = await supertest(app).get(url).set('User-Agent', TEST_USER_AGENT);
        if (res.status !== 200) return [`${url}: ${res.status}`];
        validators.push(createOpenApiValidator(res.body as Record<string, unknown>));
      }
      const failures: string[] = [];
      for (const r of recorded) {
        if (r.method === 'HEAD') continue;
        const validator = validators.find((v) => v.documents(r.method, r.url));
        if (!validator) continue;
        const text = r.body.toString('utf8');
        let body: unknown = text;
        if (/^application\/json\b/.test(r.headers['content-type'] ?? '') && text !== '') body = JSON.parse(text);
        try {
          validator.check({ method: r.method, url: r.url, status: r.status, body, headers: r.headers });
        } catch (error) {
          failures.push((error as Error).message.slice(0, 600));
        }
      }
      recorded.length = 0;
      return failures;
    },
  };
}
