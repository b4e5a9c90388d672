/** The log format: which one `auto` picks, and what a readable line holds (and never holds). */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, resolveLogFormat } from '#host/logger.ts';

describe('resolveLogFormat()', () => {
  it.each([
    ['auto', true, 'development', 'pretty'],
    ['auto', true, undefined, 'pretty'],
    ['auto', true, 'production', 'json'],
    ['auto', false, 'development', 'json'],
    ['auto', undefined, undefined, 'json'],
    ['json', true, 'development', 'json'],
    ['pretty', false, 'production', 'pretty'],
  ] as const)('%s, terminal %s, NODE_ENV %s → %s', (format, isTTY, nodeEnv, expected) => {
    expect(resolveLogFormat(format, { isTTY }, { NODE_ENV: nodeEnv })).toBe(expected);
  });
});

describe("createLogger(…, 'pretty')", () => {
  function capture() {
    let text = '';
    const sink = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    return { logger: createLogger('info', sink, 'pretty'), text: () => text };
  }

  it('says a request in one line: method, path, status, milliseconds; no ids, no colours', () => {
    const { logger, text } = capture();
    logger.info({ requestId: 'r-1', method: 'GET', path: '/people/v2/lists', status: 200, ms: 4.4 }, 'request');
    logger.info({ requestId: 'r-2', method: 'POST', path: '/login', status: 303, ms: 12.6, aborted: true }, 'request');
    expect(text().split('\n')).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: GET \/people\/v2\/lists 200 4 ms$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: POST \/login 303 13 ms \(aborted\)$/),
      '',
    ]);
  });

  it('keeps other lines’ fields below the message, credentials redacted as in JSON', () => {
    const { logger, text } = capture();
    logger.warn({ lists: 3, body: { client_secret: 'cs-123', refresh_token: 'rt-456' } }, 'scheduled list runs done');
    const out = text();
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\] WARN: scheduled list runs done\n/);
    expect(out).toContain('    lists: 3\n');
    expect(out).toContain('"client_secret": "[redacted]"');
    expect(out).not.toContain('cs-123');
    expect(out).not.toContain('rt-456');
  });
});
