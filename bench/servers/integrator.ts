/**
 * The template integrator in its own process (P1's upstream), on 127.0.0.1 port 0, with a token family
 * issued to its demo user for the development client, as a finished handshake leaves it.
 * Reports `{url, accessToken, refreshToken}` over IPC; stops on SIGTERM.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { listenOn } from '#host/http/listen.ts';
import { sandboxStartingListener } from '#host/http/starting-response.ts';
import { DEVELOPMENT_DEFAULTS, resolveIntegratorConfig } from '#integrator/config.ts';
import { createIntegrator } from '#integrator/server.ts';
import { openIntegratorDatabase } from '#integrator/store/database.ts';
import { issueTokenFamily } from '#integrator/store/tokens.ts';
import { reportReady, stopOn } from '../runner/processes.ts';

/** What the integrator server reports. */
export interface IntegratorServerInfo {
  url: string;
  accessToken: string;
  refreshToken: string;
}

const { values } = parseArgs({ options: { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' } } });
const listener = await listenOn(0, '127.0.0.1', sandboxStartingListener);
const url = `http://127.0.0.1:${listener.port}`;
const config = resolveIntegratorConfig(
  {
    port: listener.port,
    baseUrl: url,
    hostBaseUrl: 'http://127.0.0.1:1',
    oauthApplicationId: 1,
    secret: randomBytes(32).toString('base64url'),
  },
  {},
);
const db = await openIntegratorDatabase({
  databaseUrl: values['database-url'],
  schema: 'integrator',
  dataDir: values['data-dir'],
});
const integrator = await createIntegrator({ config, db });
listener.attach(integrator.app);
const { rows } = await db.query<{ id: string }>('SELECT id::text FROM users WHERE username = $1', [
  DEVELOPMENT_DEFAULTS.user.username,
]);
const { pair } = await issueTokenFamily(
  db,
  { clientId: DEVELOPMENT_DEFAULTS.clientId, userId: rows[0]!.id, scope: 'messages' },
  new Date(),
  config,
);

stopOn(async () => {
  await listener.close();
  await integrator.close();
  await db.close();
});
reportReady({ url, accessToken: pair.accessToken, refreshToken: pair.refreshToken } satisfies IntegratorServerInfo);
