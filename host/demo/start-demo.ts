/**
 * What `start` runs beside the platform in development, as the host's companion (host/main.ts): the template
 * integrator on its own listener with its own database, the sample add-on registered for it (prepareDemo), the demo
 * pages, and the demo List page as where add-ons are mounted.
 */
import { openIntegratorDatabase, type Database as IntegratorDatabase } from '@addon-kit/integrator-template';
import { SAMPLE_ADDON_BUNDLE } from '@addon-kit/sdk/server';
import type { HostCompanion } from '../main.ts';
import type { Logger } from '../logger.ts';
import { findOAuthApplication } from '../oauth/applications.ts';
import { integratorStartingListener, startDemoIntegrator, type DemoIntegrator } from './demo-integrator.ts';
import { demoAddonPages, demoRouter } from './demo-pages.tsx';
import { prepareDemo } from './prepare-demo.ts';

/** The demo as it runs: where its integrator is and who signs in there, and the List page to open. */
export interface RunningDemo {
  integrator: { url: string; login: { username: string; password: string } | undefined };
  /** The demo List page with the sample add-on (undefined when the organization has no List). */
  demoListUrl: string | undefined;
}

/** Where the demo's integrator keeps its data and listens. */
export interface DemoOptions {
  /** The host's data directory: the integrator's PGlite goes to `<dataDir>/integrator`. */
  dataDir: string;
  /** PostgreSQL instead (schema `integrator`). */
  integratorDatabaseUrl?: string | undefined;
  /** Its port (default 4100, or 0 when the host's port is 0). */
  integratorPort?: number | undefined;
}

/** The demo as the host's companion. */
export function demoCompanion(options: DemoOptions): HostCompanion<RunningDemo> {
  let integratorDb: IntegratorDatabase | undefined;
  let integrator: DemoIntegrator | undefined;
  let started: (logger: Logger) => Promise<RunningDemo> = () => Promise.reject(new Error('the demo is not prepared'));
  return {
    bundles: [SAMPLE_ADDON_BUNDLE],
    whileStarting: integratorStartingListener,
    port: (hostPort) => options.integratorPort ?? (hostPort === 0 ? 0 : 4100),
    async open() {
      integratorDb = await openIntegratorDatabase({
        databaseUrl: options.integratorDatabaseUrl,
        schema: 'integrator',
        dataDir: options.dataDir,
      });
    },
    async prepare({ db, config, listener, log }) {
      const integratorUrl = `http://localhost:${listener.port}`;
      const demo = await prepareDemo({ db, config, integratorUrl, log, build: false });
      const demoListUrl = demo.listId ? `${config.baseUrl}/demo/lists/${demo.listId}` : undefined;
      started = async (logger) => {
        integrator = await startDemoIntegrator({
          listener,
          baseUrl: integratorUrl,
          hostBaseUrl: config.baseUrl,
          oauthApplicationId: demo.sampleAddon.oauthApplicationId,
          hostName: config.platformName,
          db: integratorDb!,
          logger,
          applicationName: async (id) => (await findOAuthApplication(db, String(id)))?.name,
        });
        return { integrator: { url: integrator.url, login: integrator.login }, demoListUrl };
      };
      return { routers: [demoRouter({ db, config })], addonPages: demoAddonPages({ db, config }) };
    },
    serve: (logger) => started(logger),
    async close() {
      await integrator?.close();
      await integratorDb?.close();
    },
  };
}
