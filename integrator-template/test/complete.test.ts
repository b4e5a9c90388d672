import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../store/database.ts';
import type { HostTokens } from '../oauth/complete.ts';
import {
  APP_ID,
  createIntegratorTestDatabase,
  HOST_BASE_URL,
  startTestIntegrator,
  type TestIntegrator,
} from './support.ts';

const HOST_CLIENT = { clientId: 'addon-app-client', clientSecret: 'addon-app-secret-0123456789' };

let store: { db: Database; drop(): Promise<void> };
let plain: TestIntegrator;

beforeAll(async () => {
  store = await createIntegratorTestDatabase();
  plain = await startTestIntegrator(store.db);
});
afterAll(async () => {
  await plain.close();
  await store.drop();
});

const ADVANCE = `${HOST_BASE_URL}/addons/authorizations/${APP_ID}/advance`;

describe('GET /addon/complete', () => {
  it('redirects to the host advance step with the state and keeps no trace of the code [no exchange]', async () => {
    const res = await fetch(`${plain.url}/addon/complete?code=host-code-SECRET123&state=opaque%2Fstate%3D`, {
      redirect: 'manual',
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ADVANCE}?state=opaque%2Fstate%3D`);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(plain.logs()).not.toContain('host-code-SECRET123');
  });

  it('passes the host error on to advance [user denied at the host]', async () => {
    const res = await fetch(`${plain.url}/addon/complete?error=access_denied&state=s1`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ADVANCE}?state=s1&error=access_denied`);
  });

  it('answers 400 with a page [no state]', async () => {
    const res = await fetch(`${plain.url}/addon/complete?code=abc`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Missing state');
  });

  it('answers 400 with a page [no code]', async () => {
    const res = await fetch(`${plain.url}/addon/complete?state=s1`, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('Missing code');
  });
});

describe('GET /addon/complete (exchangeHostCode)', () => {
  let provider: Provider;
  let providerServer: Server;
  let issuer: string;
  let exchanging: TestIntegrator;
  let exchangingStore: { db: Database; drop(): Promise<void> };
  const received: HostTokens[] = [];

  beforeAll(async () => {
    providerServer = createServer();
    await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`;
    exchangingStore = await createIntegratorTestDatabase();
    exchanging = await startTestIntegrator(
      exchangingStore.db,
      { hostBaseUrl: issuer, hostTokenUrl: `${issuer}/token`, exchangeHostCode: true, hostClient: HOST_CLIENT },
      { onHostTokens: (tokens) => void received.push(tokens) },
    );
    // A real OAuth server stands in for the host's provider (the host mounts the same library).
    provider = new Provider(issuer, {
      clients: [
        {
          client_id: HOST_CLIENT.clientId,
          client_secret: HOST_CLIENT.clientSecret,
          redirect_uris: [`${exchanging.url}/addon/complete`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
      ttl: { Grant: 3600, AccessToken: 3600, IdToken: 3600, AuthorizationCode: 60 },
    });
    const callback = provider.callback();
    // The provider's handler answers its own errors; its promise carries nothing to wait for.
    providerServer.on('request', (req, res) => void callback(req, res));
  });
  afterAll(async () => {
    await exchanging.close();
    await exchangingStore.drop();
    providerServer.closeAllConnections();
    await new Promise<void>((resolve) => providerServer.close(() => resolve()));
  });

  async function hostCode(): Promise<string> {
    const client = await provider.Client.find(HOST_CLIENT.clientId);
    const grant = new provider.Grant({ accountId: 'person-1', clientId: HOST_CLIENT.clientId });
    grant.addOIDCScope('openid');
    const grantId = await grant.save();
    const code = new provider.AuthorizationCode({
      accountId: 'person-1',
      client: client!,
      grantId,
      gty: 'authorization_code',
      scope: 'openid',
      redirectUri: `${exchanging.url}/addon/complete`,
    });
    return code.save();
  }

  it('exchanges the code with openid-client, hands over the tokens, then redirects to advance [exchange]', async () => {
    const code = await hostCode();
    const res = await fetch(`${exchanging.url}/addon/complete?code=${code}&state=st-9`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${issuer}/addons/authorizations/${APP_ID}/advance?state=st-9`);
    expect(received).toHaveLength(1);
    expect(received[0]!.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(received[0]!.scope).toBe('openid');
    expect(exchanging.logs()).not.toContain(code);
  });

  it('shows a failure page and does not advance [code already used]', async () => {
    const code = await hostCode();
    expect((await fetch(`${exchanging.url}/addon/complete?code=${code}&state=a`, { redirect: 'manual' })).status).toBe(
      302,
    );
    const res = await fetch(`${exchanging.url}/addon/complete?code=${code}&state=a`, { redirect: 'manual' });
    expect(res.status).toBe(502);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('Could not reach the host');
    expect(exchanging.logs()).toContain('exchanging the host authorization code failed');
    expect(exchanging.logs()).not.toContain(code);
  });
});
