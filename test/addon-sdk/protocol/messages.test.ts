import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  PROTOCOL_VERSION,
  parseBootMessage,
  parseHandshakeReport,
  parseHostMessage,
  parseSandboxMessage,
  parseWorkerMessage,
} from '#sdk/protocol/messages.ts';

const request = {
  v: 1,
  type: 'fetch.request',
  id: 3,
  target: 'service',
  method: 'POST',
  url: '/people/v2/lists/1/people',
  headers: [['accept', 'application/json']],
  body: new ArrayBuffer(4),
};

describe('parseWorkerMessage()', () => {
  it('accepts a well-formed fetch request and returns only the known fields', () => {
    expect(parseWorkerMessage({ ...request, extra: 'ignored' })).toEqual(request);
  });

  it.each([
    ['another protocol version', { ...request, v: 2 }],
    ['an unknown type', { v: 1, type: 'eval', code: 'x' }],
    ['a negative id', { ...request, id: -1 }],
    ['an unknown target', { ...request, target: 'anywhere' }],
    ['a method with odd characters', { ...request, method: 'GET /x' }],
    ['an empty url', { ...request, url: '' }],
    ['a url over the string cap', { ...request, url: `/${'a'.repeat(LIMITS.stringBytes)}` }],
    ['headers as an object', { ...request, headers: { accept: '*/*' } }],
    ['too many headers', { ...request, headers: Array.from({ length: LIMITS.headerCount + 1 }, () => ['x', 'y']) }],
    ['a string body', { ...request, body: 'text' }],
    ['a non-object', 'fetch.request'],
    ['null', null],
  ])('drops %s [invalid]', (_name, message) => {
    expect(parseWorkerMessage(message)).toBeNull();
  });

  it('accepts hello, abort and ui.mutate', () => {
    expect(parseWorkerMessage({ v: 1, type: 'hello', protocol: PROTOCOL_VERSION })).toEqual({
      v: 1,
      type: 'hello',
      protocol: 1,
    });
    expect(parseWorkerMessage({ v: 1, type: 'fetch.abort', id: 9 })).toEqual({ v: 1, type: 'fetch.abort', id: 9 });
    expect(parseWorkerMessage({ v: 1, type: 'ui.mutate', records: [] })).toEqual({
      v: 1,
      type: 'ui.mutate',
      records: [],
    });
    expect(parseWorkerMessage({ v: 1, type: 'ui.mutate', records: 'x' })).toBeNull();
  });
});

describe('parseHostMessage()', () => {
  it('accepts each host message and drops malformed ones', () => {
    const head = {
      v: 1,
      type: 'fetch.head',
      id: 1,
      status: 200,
      statusText: 'OK',
      url: 'https://x/',
      headers: [['a', 'b']],
    };
    expect(parseHostMessage(head)).toEqual(head);
    expect(parseHostMessage({ ...head, status: '200' })).toBeNull();
    expect(parseHostMessage({ v: 1, type: 'fetch.chunk', id: 1, chunk: new ArrayBuffer(1) })).not.toBeNull();
    expect(parseHostMessage({ v: 1, type: 'fetch.chunk', id: 1, chunk: 'abc' })).toBeNull();
    expect(parseHostMessage({ v: 1, type: 'ui.event', fn: 4, args: ['x'] })).toEqual({
      v: 1,
      type: 'ui.event',
      fn: 4,
      args: ['x'],
    });
    expect(parseHostMessage({ v: 1, type: 'fetch.error', id: 1, code: 'timeout' })).toBeNull();
  });
});

describe('parseBootMessage()', () => {
  const boot = {
    type: 'addon-kit:boot',
    protocol: PROTOCOL_VERSION,
    addonUrl: 'http://s/addons/a.js',
    boot: { environment: 'production', extension: 'people.list.send_message', props: {} },
  };

  it('accepts the host boot message of this protocol version only', () => {
    expect(parseBootMessage(boot)).toEqual(boot);
    expect(parseBootMessage({ ...boot, protocol: 2 })).toBeNull();
    expect(parseBootMessage({ ...boot, boot: { ...boot.boot, environment: 'staging' } })).toBeNull();
    expect(parseBootMessage({ ...boot, boot: { ...boot.boot, props: [] } })).toBeNull();
  });
});

describe('parseSandboxMessage()', () => {
  it('accepts ready and worker-error and truncates long error text', () => {
    expect(parseSandboxMessage({ type: 'addon-kit:sandbox-ready', protocol: 1 })).toEqual({
      type: 'addon-kit:sandbox-ready',
      protocol: 1,
    });
    expect(parseSandboxMessage({ type: 'addon-kit:worker-error', message: 'e'.repeat(2000) })).toEqual({
      type: 'addon-kit:worker-error',
      message: 'e'.repeat(1000),
    });
    expect(parseSandboxMessage({ type: 'addon-kit:handshake' })).toBeNull();
  });
});

describe('parseHandshakeReport()', () => {
  it('accepts authorized, declined and failed reports, the latter two with a side [outcomes]', () => {
    const authorized = { type: 'addon-kit:handshake', installationId: '7', outcome: 'authorized', state: 'ready' };
    const declined = {
      type: 'addon-kit:handshake',
      installationId: '7',
      outcome: 'declined',
      side: 'integrator',
      state: 'integrator_pending',
      error: 'integrator_denied',
    };
    const failed = {
      type: 'addon-kit:handshake',
      installationId: '7',
      outcome: 'failed',
      side: 'host',
      state: 'uninitialized',
      error: 'state_expired',
    };
    expect([authorized, declined, failed].map(parseHandshakeReport)).toEqual([authorized, declined, failed]);
  });

  it('refuses reports without a known outcome, a side when not authorized, or a string installation id [malformed]', () => {
    const base = { type: 'addon-kit:handshake', installationId: '7', state: 'ready' };
    for (const report of [
      base,
      { ...base, outcome: 'ok' },
      { ...base, outcome: 'declined' },
      { ...base, outcome: 'declined', side: 'both' },
      { ...base, outcome: 'authorized', installationId: 7 },
      { ...base, outcome: 'authorized', type: 'addon-kit:boot' },
      null,
      'addon-kit:handshake',
    ]) {
      expect([report, parseHandshakeReport(report)]).toEqual([report, null]);
    }
  });
});
