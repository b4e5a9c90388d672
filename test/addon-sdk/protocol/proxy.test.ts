import { describe, expect, it } from 'vitest';
import {
  CSRF_FORM_FIELD,
  CSRF_HEADER,
  FETCH_HEADER,
  PROXY_ERROR_CODES,
  PROXY_ERROR_SIDES,
  REAUTHORIZATION_CODES,
  UPSTREAM_HEADER,
  decodeEnvelope,
  encodeEnvelope,
  installationPath,
  proxyPath,
} from '@addon-kit/sdk/protocol';
import { CSRF_FIELD, CSRF_HEADER as HOST_CSRF_HEADER } from '#host/auth/csrf.ts';
import {
  AddonError,
  HandshakeRequiredError,
  PolicyError,
  ReauthorizationRequiredError,
} from '#host/addons/addon-error.ts';

describe('the proxy contract (protocol/proxy.ts)', () => {
  it('names the headers and the form field once', () => {
    expect([CSRF_HEADER, FETCH_HEADER, UPSTREAM_HEADER, CSRF_FORM_FIELD]).toEqual([
      'X-CSRF-Token',
      'X-Addon-Fetch',
      'X-Addon-Upstream',
      '_csrf',
    ]);
    // The host's own CSRF check (host/auth/csrf.ts) reads the same header and field.
    expect([HOST_CSRF_HEADER, CSRF_FIELD]).toEqual([CSRF_HEADER, CSRF_FORM_FIELD]);
  });

  it('round-trips an envelope through an ASCII header value [encodeEnvelope, decodeEnvelope]', () => {
    const envelope = {
      method: 'POST',
      url: '/api/messages?q=ä&x=1',
      headers: [
        ['x-a', '1'],
        ['x-a', '2'],
      ] as [string, string][],
    };
    const header = encodeEnvelope(envelope);
    expect(header).toMatch(/^[\x21-\x7e]+$/);
    expect(decodeEnvelope(header)).toEqual(envelope);
    expect(() => decodeEnvelope('%E0%A4%A')).toThrow();
  });

  it('builds the installation and proxy paths [installationPath, proxyPath]', () => {
    expect(installationPath('https://host.example/', '12', 'state')).toBe(
      'https://host.example/addons/installations/12/state',
    );
    expect(proxyPath('https://host.example', 'a/b', 'integrator')).toBe(
      'https://host.example/addons/installations/a%2Fb/fetch/integrator',
    );
  });

  it("is what the host's proxy errors render [ProxyErrorBody]", () => {
    const errors: AddonError[] = [
      new HandshakeRequiredError('host_auth'),
      new ReauthorizationRequiredError(),
      new PolicyError('not_allowed', 'no'),
    ];
    for (const error of errors) {
      const { error: body } = error.toJSON();
      expect(PROXY_ERROR_SIDES).toContain(body.side);
      expect(PROXY_ERROR_CODES).toContain(body.code);
    }
    expect(REAUTHORIZATION_CODES).toEqual(['reauthorization_required', 'handshake_required']);
  });
});
