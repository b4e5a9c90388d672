import { describe, expect, it } from 'vitest';
import { isNonPublicAddress } from '@addon-kit/host/internal/addons/address-policy.ts';
import { parseFetchEnvelope, stripHeaders } from '@addon-kit/host/internal/addons/fetch-envelope.ts';
import { isLoopbackUrl } from '@addon-kit/host/internal/addons/integrator-client.ts';
import { checkIntegratorCall, matchesTemplate } from '@addon-kit/host/internal/addons/integrator-policy.ts';
import { checkServiceCall } from '@addon-kit/host/internal/addons/service-policy.ts';

describe('isNonPublicAddress()', () => {
  it('refuses loopback, private, link-local, shared, multicast and mapped addresses [non-public]', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      expect([a, isNonPublicAddress(a)]).toEqual([a, true]);
    }
  });

  it('accepts public unicast addresses [public]', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect([a, isNonPublicAddress(a)]).toEqual([a, false]);
  });
});

describe('matchesTemplate()', () => {
  it('matches literal segments and one segment per :name [templates]', () => {
    expect(matchesTemplate('/api/messages/:id', '/api/messages/42')).toBe(true);
    expect(matchesTemplate('/api/messages/:id', '/api/messages/')).toBe(false);
    expect(matchesTemplate('/api/messages/:id', '/api/messages/42/x')).toBe(false);
    expect(matchesTemplate('/api/messages/:id', '/api/messages/a%2Fb')).toBe(false);
    expect(matchesTemplate('/api/messages', '/api/messages/')).toBe(true);
    expect(matchesTemplate('/api/messages', '/API/messages')).toBe(false);
  });
});

describe('checkIntegratorCall()', () => {
  const api = { base_url: 'https://api.example', allow: [{ method: 'GET', path: '/api/messages/:id' }] };
  it('resolves relative URLs against the base URL and keeps the query [relative]', () => {
    expect(checkIntegratorCall(api, 'GET', '/api/messages/7?x=1#frag').toString()).toBe('https://api.example/api/messages/7?x=1');
  });
  it('refuses credentials in the URL, other ports and dot segments leaving the template [not_allowed]', () => {
    expect(() => checkIntegratorCall(api, 'GET', 'https://user:pw@api.example/api/messages/7')).toThrow('URLs with credentials are not allowed');
    expect(() => checkIntegratorCall(api, 'GET', 'https://api.example:8443/api/messages/7')).toThrow('Only https://api.example may be called');
    expect(() => checkIntegratorCall(api, 'GET', '/api/messages/7/../../admin')).toThrow("GET /api/admin is not in the add-on's integrator_api allow-list");
  });
});

describe('checkServiceCall()', () => {
  it('accepts host API paths under the add-on scopes only [scopes]', () => {
    expect(checkServiceCall('https://host.example', ['people'], '/people/v2/lists?per_page=1').toString()).toBe('https://host.example/people/v2/lists?per_page=1');
    expect(() => checkServiceCall('https://host.example', ['people'], '/people/v2x')).toThrow('/people/v2x is not a host API path');
    expect(() => checkServiceCall('https://host.example', ['people'], '/oauth/token')).toThrow('/oauth/token is not a host API path');
  });
});

describe('parseFetchEnvelope()', () => {
  it('reads the method in any case and refuses header values with line breaks [envelope]', () => {
    const header = (v: unknown) => encodeURIComponent(JSON.stringify(v));
    expect(parseFetchEnvelope(header({ method: 'post', url: '/x', headers: [['A', 'b']] }))).toEqual({ method: 'POST', url: '/x', headers: [['A', 'b']] });
    expect(() => parseFetchEnvelope(header({ method: 'GET', url: '/x', headers: [['A', 'b\r\nInjected: 1']] }))).toThrow('X-Addon-Fetch headers.0.1');
    expect(() => parseFetchEnvelope(header({ method: 'TRACE', url: '/x' }))).toThrow('X-Addon-Fetch method');
    expect(() => parseFetchEnvelope(undefined)).toThrow('The X-Addon-Fetch header is missing');
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
    expect(['http://localhost:4100/t', 'http://127.0.0.1:1/t', 'http://[::1]:2/t', 'http://app.localhost/t'].map(isLoopbackUrl)).toEqual([true, true, true, true]);
    expect(['http://192.168.1.5/t', 'http://integrator.example/t'].map(isLoopbackUrl)).toEqual([false, false]);
  });
});
