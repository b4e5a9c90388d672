import { describe, expect, it } from 'vitest';
import { isNonPublicAddress } from '#host/outbound/address-policy.ts';
import { PARSED_ENVELOPES, parseFetchEnvelope, stripHeaders } from '#host/addons/proxy/fetch-envelope.ts';
import { isLoopbackUrl } from '#host/addons/tokens/integrator-client.ts';
import type { PolicyError } from '#host/addons/addon-error.ts';
import { canonicalPathOf, checkIntegratorCall, matchesTemplate } from '#host/addons/proxy/integrator-policy.ts';
import { checkServiceCall } from '#host/addons/proxy/service-policy.ts';

describe('isNonPublicAddress()', () => {
  it('refuses loopback, private, link-local, shared, multicast and mapped addresses [non-public]', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
    ]) {
      expect([a, isNonPublicAddress(a)]).toEqual([a, true]);
    }
  });

  it('accepts public unicast addresses [public]', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect([a, isNonPublicAddress(a)]).toEqual([a, false]);
  });
});

describe('matchesTemplate()', () => {
  it('matches literal segments exactly and one non-empty segment per :name [templates]', () => {
    const table: [template: string, path: string, matches: boolean][] = [
      ['/api/messages/:id', '/api/messages/42', true],
      ['/api/messages/:id', '/api/messages/', false],
      ['/api/messages/:id', '/api/messages/42/x', false],
      ['/api/messages', '/api/messages', true],
      ['/api/messages', '/api/messages/', false],
      ['/api/messages/', '/api/messages/', true],
      ['/api/messages/', '/api/messages', false],
      ['/api/messages', '/API/messages', false],
      ['/api/messages', '/api/messag%65s', false],
      ['/api/messages', '/api//messages', false],
      ['/', '/', true],
      ['/', '/x', false],
    ];
    expect(table.map(([template, path]) => [template, path, matchesTemplate(template, path)])).toEqual(table);
  });
});

describe('canonicalPathOf()', () => {
  it('accepts absolute paths and absolute URLs in canonical form, returning the path as sent [accepted]', () => {
    const table: [raw: string, path: string][] = [
      ['/api/messages', '/api/messages'],
      ['/api/messages/', '/api/messages/'],
      ['/api/messages/42?x=1#frag', '/api/messages/42'],
      ['/api/messages/a%20b', '/api/messages/a%20b'],
      ["/api/messages/-._~!$&'()*+,;=:@", "/api/messages/-._~!$&'()*+,;=:@"],
      ['/api/messages/...', '/api/messages/...'],
      ['/api/messages?q=a%5Cb', '/api/messages'],
      ['https://api.example/api/messages', '/api/messages'],
      ['https://api.example', '/'],
      ['https://api.example?x=1', '/'],
    ];
    expect(table.map(([raw]) => [raw, canonicalPathOf(raw)])).toEqual(table);
  });

  it('refuses backslashes, control characters, encoded separators, dot segments and relative forms [refused]', () => {
    const table: [raw: string, message: string][] = [
      ['/api\\messages', 'Integrator URLs may not contain a backslash or a control character'],
      ['/api/messages\\', 'Integrator URLs may not contain a backslash or a control character'],
      ['https://api.example\\api/messages', 'Integrator URLs may not contain a backslash or a control character'],
      ['/api/mes\tsages', 'Integrator URLs may not contain a backslash or a control character'],
      ['/api/messages\n', 'Integrator URLs may not contain a backslash or a control character'],
      ['/api/messages?q=\\', 'Integrator URLs may not contain a backslash or a control character'],
      ['/api%5cmessages', 'The path may not contain an encoded / or \\ (%2F, %5C)'],
      ['/api%5Cmessages', 'The path may not contain an encoded / or \\ (%2F, %5C)'],
      ['/api%2fmessages', 'The path may not contain an encoded / or \\ (%2F, %5C)'],
      ['/api/messages/..%2Fadmin', 'The path may not contain an encoded / or \\ (%2F, %5C)'],
      ['/api/./messages', 'The path may not contain a . or .. segment'],
      ['/api/x/../messages', 'The path may not contain a . or .. segment'],
      ['/api/messages/.', 'The path may not contain a . or .. segment'],
      ['/api/%2e%2e/messages', 'The path may not contain a . or .. segment'],
      ['/api/.%2E/messages', 'The path may not contain a . or .. segment'],
      ['/api/%2E/messages', 'The path may not contain a . or .. segment'],
      ['/api/mes sages', 'The path may hold RFC 3986 path characters only; percent-encode the others'],
      ['/api/messages/%zz', 'The path may hold RFC 3986 path characters only; percent-encode the others'],
      ['/api/messages/é', 'The path may hold RFC 3986 path characters only; percent-encode the others'],
      ['/api/messages/<x>', 'The path may hold RFC 3986 path characters only; percent-encode the others'],
      ['api/messages', 'Integrator URLs must be absolute or start with /'],
      [' /api/messages', 'Integrator URLs must be absolute or start with /'],
      ['?x=1', 'Integrator URLs must be absolute or start with /'],
      ['https:/api/messages', 'Integrator URLs must be absolute or start with /'],
    ];
    const refusal = (raw: string) => {
      try {
        return `accepted ${canonicalPathOf(raw)}`;
      } catch (error) {
        return (error as PolicyError).code === 'not_allowed' ? (error as Error).message : `unexpected ${String(error)}`;
      }
    };
    expect(table.map(([raw]) => [raw, refusal(raw)])).toEqual(table);
  });
});

describe('checkIntegratorCall()', () => {
  const api = {
    base_url: 'https://api.example',
    allow: [
      { method: 'GET', path: '/api/messages/:id' },
      { method: 'POST', path: '/api/messages' },
    ],
  };
  it('resolves absolute paths against the base URL and keeps the query [relative]', () => {
    expect(checkIntegratorCall(api, 'GET', '/api/messages/7?x=1#frag').toString()).toBe(
      'https://api.example/api/messages/7?x=1',
    );
    expect(checkIntegratorCall(api, 'POST', 'https://api.example/api/messages').toString()).toBe(
      'https://api.example/api/messages',
    );
  });
  it('refuses credentials in the URL, other origins, a trailing slash and dot segments [not_allowed]', () => {
    expect(() => checkIntegratorCall(api, 'GET', 'https://user:pw@api.example/api/messages/7')).toThrow(
      'URLs with credentials are not allowed',
    );
    expect(() => checkIntegratorCall(api, 'GET', 'https://api.example:8443/api/messages/7')).toThrow(
      'Only https://api.example may be called',
    );
    expect(() => checkIntegratorCall(api, 'GET', '//evil.example/api/messages/7')).toThrow(
      'Only https://api.example may be called',
    );
    expect(() => checkIntegratorCall(api, 'POST', '/api/messages/')).toThrow(
      "POST /api/messages/ is not in the add-on's integrator_api allow-list",
    );
    expect(() => checkIntegratorCall(api, 'GET', '/api/messages/7/../../admin')).toThrow(
      'The path may not contain a . or .. segment',
    );
    expect(() => checkIntegratorCall(api, 'POST', '/api\\messages')).toThrow(
      'Integrator URLs may not contain a backslash or a control character',
    );
  });
});

describe('checkServiceCall()', () => {
  it('accepts host API paths under the add-on scopes only [scopes]', () => {
    expect(checkServiceCall('https://host.example', ['people'], '/people/v2/lists?per_page=1').toString()).toBe(
      'https://host.example/people/v2/lists?per_page=1',
    );
    expect(() => checkServiceCall('https://host.example', ['people'], '/people/v2x')).toThrow(
      '/people/v2x is not a host API path',
    );
    expect(() => checkServiceCall('https://host.example', ['people'], '/oauth/token')).toThrow(
      '/oauth/token is not a host API path',
    );
  });
});

describe('parseFetchEnvelope()', () => {
  it('reads the method in any case and refuses header values with line breaks [envelope]', () => {
    const header = (v: unknown) => encodeURIComponent(JSON.stringify(v));
    expect(parseFetchEnvelope(header({ method: 'post', url: '/x', headers: [['A', 'b']] }))).toEqual({
      method: 'POST',
      url: '/x',
      headers: [['A', 'b']],
    });
    expect(() =>
      parseFetchEnvelope(header({ method: 'GET', url: '/x', headers: [['A', 'b\r\nInjected: 1']] })),
    ).toThrow('X-Addon-Fetch headers.0.1');
    expect(() => parseFetchEnvelope(header({ method: 'TRACE', url: '/x' }))).toThrow('X-Addon-Fetch method');
    expect(() => parseFetchEnvelope(undefined)).toThrow('The X-Addon-Fetch header is missing');
  });

  it('answers a repeated header from the envelope it checked, frozen, and keeps refusing a bad one [kept]', () => {
    const header = encodeURIComponent(JSON.stringify({ method: 'get', url: '/kept', headers: [['Accept', 'x']] }));
    const first = parseFetchEnvelope(header);
    expect(parseFetchEnvelope(header)).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.headers) && Object.isFrozen(first.headers[0])).toBe(true);
    expect(() => first.headers.push(['B', 'y'])).toThrow(TypeError);
    expect(parseFetchEnvelope(header)).toEqual({ method: 'GET', url: '/kept', headers: [['Accept', 'x']] });
    const bad = encodeURIComponent(JSON.stringify({ method: 'TRACE', url: '/kept' }));
    expect(() => parseFetchEnvelope(bad)).toThrow('X-Addon-Fetch method');
    expect(() => parseFetchEnvelope(bad)).toThrow('X-Addon-Fetch method');
  });

  it('keeps at most PARSED_ENVELOPES checked envelopes, the oldest going first [bound]', () => {
    const header = (i: number) => encodeURIComponent(JSON.stringify({ method: 'GET', url: `/bound/${i}` }));
    const oldest = parseFetchEnvelope(header(0));
    for (let i = 1; i <= PARSED_ENVELOPES; i++) parseFetchEnvelope(header(i));
    const again = parseFetchEnvelope(header(0));
    expect(again).not.toBe(oldest);
    expect(again).toEqual(oldest);
  });
});

describe('stripHeaders()', () => {
  it('drops hop-by-hop, credential and Connection-named headers, keeping repeated others [headers]', () => {
    expect(
      stripHeaders([
        ['Connection', 'keep-alive, X-Secret'],
        ['X-Secret', '1'],
        ['Set-Cookie', 'a=1'],
        ['Transfer-Encoding', 'chunked'],
        ['Proxy-Authorization', 'x'],
        ['X-Addon-Fetch', 'x'],
        ['Vary', 'a'],
        ['Vary', 'b'],
      ]),
    ).toEqual([
      ['Vary', 'a'],
      ['Vary', 'b'],
    ]);
  });
});

describe('isLoopbackUrl()', () => {
  it('recognises this machine only [plain http in development]', () => {
    expect(
      ['http://localhost:4100/t', 'http://127.0.0.1:1/t', 'http://[::1]:2/t', 'http://app.localhost/t'].map(
        isLoopbackUrl,
      ),
    ).toEqual([true, true, true, true]);
    expect(['http://192.168.1.5/t', 'http://integrator.example/t'].map(isLoopbackUrl)).toEqual([false, false]);
  });
});
