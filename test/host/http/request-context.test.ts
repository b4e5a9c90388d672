/**
 * The request line (host/http/request-context.ts): one per response, naming the request, its trace and span, its
 * answer and its time — the same fields whether the host's own logger writes it (the plain sibling that skips
 * redaction) or a logger made elsewhere does; none at a level above info.
 */
import { PassThrough } from 'node:stream';
import { pino } from 'pino';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { createLogger, logRequest, type Logger } from '#host/logger.ts';
import { createTestHost } from '../../support/host.ts';

/** JSON lines written to a stream, parsed. */
function captured() {
  const lines: Record<string, unknown>[] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
  });
  return { stream, lines };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

/** The request line of one `GET /health?x=1` through a host logging with `logger`. */
async function requestLine(logger: Logger, lines: Record<string, unknown>[]) {
  const t = await createTestHost({ deps: { logger } });
  try {
    const res = await supertest(t.host.app).get('/health?x=1');
    await settle();
    return { res, line: lines.find((l) => l.msg === 'request') };
  } finally {
    await t.close();
  }
}

const LINE_KEYS = ['level', 'time', 'traceId', 'spanId', 'requestId', 'method', 'path', 'status', 'ms', 'msg'];

describe('the request line', () => {
  it('names the request, its trace and span, its answer and its time, and no query string [host logger]', async () => {
    const { stream, lines } = captured();
    const { res, line } = await requestLine(createLogger('info', stream), lines);
    expect(Object.keys(line!)).toEqual(LINE_KEYS);
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      requestId: res.headers['x-request-id'],
      method: 'GET',
      path: '/health',
      status: 200,
      ms: expect.any(Number),
      msg: 'request',
    });
  });

  it('has the same fields through a logger made elsewhere [foreign logger]', async () => {
    const { stream, lines } = captured();
    const { logFields } = await import('#host/tracing/index.ts');
    const { line } = await requestLine(pino({ base: undefined, mixin: logFields }, stream), lines);
    expect(Object.keys(line!)).toEqual(LINE_KEYS);
  });

  it('is not written above the info level, also when the level changes after start [level]', async () => {
    const { stream, lines } = captured();
    const warn = await requestLine(createLogger('warn', stream), lines);
    expect(warn.line).toBeUndefined();
    const logger = createLogger('info', stream);
    logger.level = 'error';
    logRequest(logger, { requestId: 'r-1', method: 'GET', path: '/', status: 200, ms: 1 });
    logger.level = 'debug';
    logRequest(logger, { requestId: 'r-2', method: 'GET', path: '/', status: 200, ms: 1 });
    await settle();
    expect(lines.map((l) => l.requestId)).toEqual(['r-2']);
  });
});
