/**
 * P2's baseline: bare oidc-provider (the host's version) with its in-memory adapter and a minimal
 * configuration for refresh tokens (rotated, as the host rotates them), on 127.0.0.1 port 0.
 * `POST /bench/issue?count=N` issues N unused refresh tokens (a grant each), outside the measured rounds:
 * the in-memory adapter is an LRU of 1000 entries, so tokens are issued just before the round that spends them.
 * With `--data-dir D` or `--database-url U`, the same provider keeps its models in that database instead, through
 * the plainest durable adapter (bare-oidc-adapter.ts: one prepared statement per adapter call) — P2's floor for
 * any host that keeps its tokens in a database.
 * Reports `{url, clientId, clientSecret}`; stops on SIGTERM.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import { reportReady, stopOn } from '../runner/processes.ts';
import { openModelStore } from './bare-oidc-adapter.ts';

const CLIENT = { client_id: 'bench', client_secret: 'bench-secret-0123456789' };
const ACCOUNT = 'person-1';

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' } } });
const store =
  values['data-dir'] || values['database-url']
    ? await openModelStore({ dataDir: values['data-dir'], databaseUrl: values['database-url'] })
    : undefined;

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const jwk = { ...(await exportJWK(privateKey)), kid: 'bench', alg: 'RS256', use: 'sig' };
const server = createServer();
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const provider = new Provider(url, {
  ...(store ? { adapter: store.adapter } : {}),
  clients: [
    {
      ...CLIENT,
      grant_types: ['authorization_code', 'refresh_token'],
      redirect_uris: ['http://127.0.0.1/callback'],
      response_types: ['code'],
    },
  ],
  scopes: ['people'],
  findAccount: (_ctx, sub) => Promise.resolve({ accountId: sub, claims: () => Promise.resolve({ sub }) }),
  jwks: { keys: [jwk] as never },
  features: { devInteractions: { enabled: false } },
  issueRefreshToken: () => Promise.resolve(true),
  rotateRefreshToken: true,
  ttl: {
    AccessToken: 7200,
    RefreshToken: 90 * 86_400,
    Grant: 90 * 86_400,
    Interaction: 3600,
    Session: 86_400,
    IdToken: 3600,
    AuthorizationCode: 60,
  },
});

/** N fresh refresh tokens, each under its own grant (as the host's are issued). */
async function issue(count: number): Promise<string[]> {
  const client = (await provider.Client.find(CLIENT.client_id))!;
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    const grant = new provider.Grant({ accountId: ACCOUNT, clientId: client.clientId });
    grant.addOIDCScope('people');
    const grantId = await grant.save();
    tokens.push(
      await new provider.RefreshToken({
        accountId: ACCOUNT,
        client,
        grantId,
        scope: 'people',
        gty: 'authorization_code',
      }).save(),
    );
  }
  return tokens;
}

const callback = provider.callback();
server.on('request', (req, res) => {
  const issueUrl = new URL(req.url ?? '/', url);
  if (req.method === 'POST' && issueUrl.pathname === '/bench/issue') {
    void issue(Number(issueUrl.searchParams.get('count') ?? 10)).then((tokens) =>
      res.setHeader('content-type', 'application/json').end(JSON.stringify({ tokens })),
    );
    return;
  }
  void callback(req, res);
});

stopOn(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await store?.close();
});
reportReady({ url, clientId: CLIENT.client_id, clientSecret: CLIENT.client_secret });
