/**
 * What `start` adds to the platform in development: the demo bundles and the sample add-on (prepareDemo), the
 * demo pages, and the template integrator on its own listener with its own database.
 */
import type { Router } from 'express';
import type { AddonPages } from '../addons/index.ts';
import type { Database as IntegratorDatabase } from '@addon-kit/integrator-template';
import type { HostConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { Listener } from '../http/listen.ts';
import type { Logger } from '../logger.ts';
import { findOAuthApplication } from '../oauth/applications.ts';
import { startDemoIntegrator, type DemoIntegrator } from './demo-integrator.ts';
import { demoAddonPages, demoRouter } from './demo-pages.tsx';
import { prepareDemo } from './prepare-demo.ts';

/** The demo, prepared; `serve` starts the integrator once the host's logger exists. */
export interface RunningDemo {
  /** The demo pages, for the host's `routers`. */
  router: Router;
  /** The demo List page as where add-ons are mounted, for the host's `addonPages`. */
  pages: AddonPages;
  /** The template integrator and its demo login (set once `serve` resolved). */
  integrator: { url: string; login: { username: string; password: string } | undefined };
  /** The demo List page with the sample add-on (undefined when the organization has no List). */
  demoListUrl: string | undefined;
  serve(logger: Logger): Promise<void>;
  /** Stops the integrator (the listener and its database are the caller's). */
  close(): Promise<void>;
}

/** Prepares the demo over the host's database; the integrator listens on `listener` (opened beforehand for its URL). */
export async function startDemo(options: {
  db: Database;
  config: HostConfig;
  listener: Listener;
  /** The integrator's own database, opened (and closed) by the caller. */
  integratorDb: IntegratorDatabase;
  log: (line: string) => void;
}): Promise<RunningDemo> {
  const { config } = options;
  const integratorUrl = `http://localhost:${options.listener.port}`;
  const demo = await prepareDemo({ db: options.db, config, integratorUrl, log: options.log });
  let integrator: DemoIntegrator | undefined;
  const running: RunningDemo = {
    router: demoRouter({ db: options.db, config }),
    pages: demoAddonPages({ db: options.db, config }),
    integrator: { url: integratorUrl, login: undefined },
    demoListUrl: demo.listId ? `${config.baseUrl}/demo/lists/${demo.listId}` : undefined,
    async serve(logger) {
      integrator = await startDemoIntegrator({
        listener: options.listener,
        baseUrl: integratorUrl,
        hostBaseUrl: config.baseUrl,
        oauthApplicationId: demo.sampleAddon.oauthApplicationId,
        hostName: config.platformName,
        db: options.integratorDb,
        logger,
        applicationName: async (id) => (await findOAuthApplication(options.db, String(id)))?.name,
      });
      running.integrator = { url: integrator.url, login: integrator.login };
    },
    async close() {
      await integrator?.close();
    },
  };
  return running;
}
