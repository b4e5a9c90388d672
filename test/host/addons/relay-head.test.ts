/**
 * upstreamHead(): the three fields the relay reads of the upstream's head, taken from the header pairs it relays —
 * equal to what Node's `headers` object of the same response says, repeated fields included.
 */
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { headerPairs } from '#host/addons/proxy/fetch-envelope.ts';
import { upstreamHead } from '#host/addons/proxy/relay.ts';

/** What Node's `headers` says of the raw header lines. */
function nodeHead(raw: string[]) {
  const message = new IncomingMessage(new Socket());
  // Node's own parser step for a message's header lines (what its HTTP client calls for every response).
  (message as unknown as { _addHeaderLines(lines: string[], n: number): void })._addHeaderLines(raw, raw.length);
  const { location, 'content-length': contentLength, 'content-encoding': contentEncoding } = message.headers;
  return { location, contentLength, contentEncoding };
}

const CASES: [string, string[]][] = [
  ['none', ['Content-Type', 'application/json']],
  ['once each', ['Location', '/next', 'Content-Length', '12', 'Content-Encoding', 'gzip']],
  ['repeated', ['location', '/a', 'LOCATION', '/b', 'Content-Length', '5', 'content-length', '6']],
  ['repeated encodings', ['Content-Encoding', 'gzip', 'X-Other', '1', 'content-encoding', 'br']],
  ['empty values', ['Location', '', 'Content-Encoding', '', 'Content-Encoding', 'gzip']],
];

describe('upstreamHead()', () => {
  for (const [name, raw] of CASES)
    it(`reads Location, Content-Length and Content-Encoding as Node's headers does [${name}]`, () => {
      expect(upstreamHead(headerPairs(raw))).toEqual(nodeHead(raw));
    });
});
