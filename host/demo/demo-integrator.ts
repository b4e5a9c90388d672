/**
 * The template integrator as `start` runs it beside the host, on a listener opened beforehand (so its URL,
 * which the add-on config names, is known even for port 0). It serves the sample add-on at `/addon/complete` and,
 * being a development integrator, every other add-on of the host at `/addon/complete/{oauth_application_id}` (the
 * scaffolded add-on's development config points there): no second integrator and no variable to set.
 */
import type { RequestListener } from 'node:http';
import {
  createIntegrator,
  resolveIntegratorConfig,
  type Database,
  type Integrator,
} from '@addon-kit/integrator-template';
import type { Listener } from '../http/listen.ts';
import { sendStarting } from '../http/starting-response.ts';
import type { Logger } from '../logger.ts';
import { SAMPLE_ADDON_NAME } from './sample-addon.ts';

/** What the demo integrator needs. */
export interface DemoIntegratorOptions {
  listener: Listener;
  /** Its public base URL. */
  baseUrl: string;
  hostBaseUrl: string;
  /** The sample add-on's OAuth application id on the host. */
  oauthApplicationId: string;
  /** The host's platform name (config `platformName`): the integrator's consent page names the host by it. */
  hostName: string;
  /** Its own database (PGlite in `<dataDir>/integrator` or the `integrator` schema; see openIntegratorDatabase). */
  db: Database;
  /** INTEGRATOR_* variables (default process.env). */
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** The host's name of one of its OAuth applications (the consent page names each add-on so). */
  applicationName?: (oauthApplicationId: number) => Promise<string | undefined>;
}

/** A running demo integrator and the login it was seeded with. */
export interface DemoIntegrator {
  integrator: Integrator;
  url: string;
  /** The first configured user (in development `demo` / `demo-password` unless INTEGRATOR_DEMO_PASSWORD is set). */
  login: { username: string; password: string } | undefined;
  /** Stops serving (the listener and the database are the caller's). */
  close(): Promise<void>;
}

/**
 * The integrator's listener until its app is attached: `503` in the template's own error shape.
 * @see RFC 6749 §4.1.2.1 (`temporarily_unavailable`)
 */
export const integratorStartingListener: RequestListener = (_req, res) =>
  sendStarting(res, {
    error: 'temporarily_unavailable',
    error_description: 'the integrator is starting; retry in a moment',
  });

/** Builds the integrator app over `db` and serves it on the listener. */
export async function startDemoIntegrator(options: DemoIntegratorOptions): Promise<DemoIntegrator> {
  const env = options.env ?? process.env;
  // The consent page names the add-on and the host by what they really are, unless the environment says otherwise.
  const names = {
    INTEGRATOR_ADDON_NAME: env.INTEGRATOR_ADDON_NAME || SAMPLE_ADDON_NAME,
    INTEGRATOR_HOST_NAME: env.INTEGRATOR_HOST_NAME || options.hostName,
  };
  const config = resolveIntegratorConfig(
    {
      port: options.listener.port,
      baseUrl: options.baseUrl,
      hostBaseUrl: options.hostBaseUrl,
      oauthApplicationId: Number(options.oauthApplicationId),
    },
    { ...env, ...names },
  );
  const integrator = await createIntegrator({
    config,
    db: options.db,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.applicationName ? { applicationName: options.applicationName } : {}),
  });
  options.listener.attach(integrator.app);
  const user = config.users[0];
  return {
    integrator,
    url: config.baseUrl,
    login: user && { username: user.username, password: user.password },
    close: () => integrator.close(),
  };
}
