/**
 * The main job: the host with its database (migrated, demo data seeded on first start) listening on its
 * port, the add-on sandbox origin on a second listener, and the template integrator beside them with the
 * sample add-on registered for it (host/demo).
 */
import type { RequestListener, Server } from 'node:http';
import { createHost, type Host } from './app.ts';
import { resolveHostConfig, type HostConfigInput } from './config.ts';
import type { Database } from './db/database.ts';
import { DEMO_LOGINS, seedDemo } from './db/seed/demo.ts';
import { generateDemoPassword, readDemoPassword, rememberDemoPassword } from './db/seed/demo-password.ts';
import { addonSdkDir } from './demo/bundle-dir.ts';
import { integratorStartingListener, startDemoIntegrator } from './demo/demo-integrator.ts';
import { listenOn, type Listener } from './demo/listen.ts';
import { prepareDemo } from './demo/prepare-demo.ts';
import { createSandboxApp } from './demo/sandbox-app.ts';
import { hostStartingListener, sandboxStartingListener } from './http/starting-response.ts';
import { loadOrCreateSecrets } from './secrets.ts';
import { openIntegratorDatabase } from '../integrator-template/store/database.ts';

export interface StartOptions {
  db: Database;
  dataDir: string;
  config?: HostConfigInput;
  /** Password for the demo logins when the demo data is first seeded. */
  demoPassword?: string | undefined;
  /** The template integrator: its port (default 4100, or 0 when the host's port is 0) and PostgreSQL URL (schema `integrator`; default PGlite in `<dataDir>/integrator`). */
  integrator?: { port?: number | undefined; databaseUrl?: string | undefined };
  log?: (line: string) => void;
  /**
   * Called once the three listeners are open and answer `503` (see host/http/starting-response.ts), before the
   * demo is prepared and the apps are attached; start-up waits for it (tests hold start-up here).
   */
  onListening?: (urls: { url: string; sandboxUrl: string; integratorUrl: string }) => Promise<void>;
}

export interface RunningHost {
  host: Host;
  server: Server;
  url: string;
  /** The add-on sandbox origin. */
  sandboxUrl: string;
  /** The template integrator and its demo login. */
  integrator: { url: string; login: { username: string; password: string } | undefined };
  /** The demo List page with the sample add-on (undefined when the organization has no List). */
  demoListUrl: string | undefined;
  /** Demo logins: e-mail and password (undefined when this data directory did not seed them). */
  logins: { email: string; password: string | undefined }[];
  close(): Promise<void>;
}

/** Seeds on first start, then serves the host, the sandbox and the template integrator. */
export async function startHost(options: StartOptions): Promise<RunningHost> {
  const log = options.log ?? (() => {});
  const secrets = await loadOrCreateSecrets(options.dataDir);
  const requested = resolveHostConfig({ ...secrets, dataDir: options.dataDir, ...options.config });
  const organizations = await options.db.query("SELECT 1 FROM organizations WHERE slug = 'demo'");
  let password = await readDemoPassword(options.dataDir);
  if (organizations.rows.length === 0) {
    password = options.demoPassword ?? generateDemoPassword();
    log('addon-kit: seeding demo data (first start)…');
    await seedDemo(options.db, { password, log });
    await rememberDemoPassword(options.dataDir, password);
  } else if (options.demoPassword && options.demoPassword !== password) {
    log('addon-kit: --demo-password applies only when the demo data is first seeded; keeping the existing passwords');
  }

  // Listen first: with port 0 the URLs (issuer, sandbox origin, integrator URLs in the add-on config) need the real ports.
  const listeners: Listener[] = [];
  const closeListeners = () => Promise.all(listeners.map((l) => l.close()));
  const listen = async (port: number, whileStarting: RequestListener) => {
    const listener = await listenOn(port, requested.bindAddress, whileStarting);
    listeners.push(listener);
    return listener;
  };
  let integratorDb: Database | undefined;
  try {
    // Before listening: opening an embedded PGlite holds the event loop for seconds under load, and a listener
    // open by then could not even answer 503.
    integratorDb = await openIntegratorDatabase({ databaseUrl: options.integrator?.databaseUrl, schema: 'integrator', dataDir: options.dataDir });
    const hostListener = await listen(requested.port, hostStartingListener(options.db.kind));
    const sandboxPort = requested.sandboxPort ?? (requested.port === 0 ? 0 : requested.port + 1);
    const sandboxListener = await listen(sandboxPort, sandboxStartingListener);
    const integratorPort = options.integrator?.port ?? (requested.port === 0 ? 0 : 4100);
    const integratorListener = await listen(integratorPort, integratorStartingListener);
    const explicitBaseUrl = options.config?.baseUrl ?? (process.env.ADDON_KIT_BASE_URL || undefined);
    const config = resolveHostConfig({
      ...secrets,
      dataDir: options.dataDir,
      ...options.config,
      port: hostListener.port,
      baseUrl: explicitBaseUrl ?? `http://localhost:${hostListener.port}`,
      // 127.0.0.1, not localhost: cookies ignore ports, so another host name keeps the host session cookie
      // away from the sandbox (the add-on origin) in development.
      sandboxUrl: requested.sandboxUrl ?? `http://127.0.0.1:${sandboxListener.port}`,
      addonSdkDir: addonSdkDir(requested),
    });
    const integratorUrl = `http://localhost:${integratorListener.port}`;
    await options.onListening?.({ url: config.baseUrl, sandboxUrl: config.sandboxUrl!, integratorUrl });
    const demo = await prepareDemo({ db: options.db, config, integratorUrl, log });

    const host = await createHost({ config, db: options.db });
    hostListener.attach(host.app);
    sandboxListener.attach(createSandboxApp({ db: options.db, hostBaseUrl: config.baseUrl, sandboxUrl: config.sandboxUrl!, bundleDir: addonSdkDir(config) }));
    const integrator = await startDemoIntegrator({
      listener: integratorListener,
      baseUrl: integratorUrl,
      hostBaseUrl: config.baseUrl,
      oauthApplicationId: demo.sampleAddon.oauthApplicationId,
      hostName: config.platformName,
      db: integratorDb,
      logger: host.logger,
    });
    const db = integratorDb;
    return {
      host,
      server: hostListener.server,
      url: config.baseUrl,
      sandboxUrl: config.sandboxUrl!,
      integrator: { url: integrator.url, login: integrator.login },
      demoListUrl: demo.listId ? `${config.baseUrl}/demo/lists/${demo.listId}` : undefined,
      logins: DEMO_LOGINS.map((l) => ({ email: l.email, password })),
      async close() {
        await closeListeners();
        await integrator.close();
        await db.close();
        await host.close();
      },
    };
  } catch (error) {
    await closeListeners();
    await integratorDb?.close();
    throw error;
  }
}
