/**
 * The platform's main job: the host over its database listening on its port and the add-on sandbox origin on a
 * second listener — and, when given, a companion on a third (what `addon-kit start` runs beside the platform in
 * development: the demo, host/demo/start-demo.ts). Seeding and the demo are not the platform's: `start` seeds a new
 * database (host/demo/seed/seed-on-first-start.ts) and brings the demo as the companion.
 */
import type { RequestListener, Server } from 'node:http';
import type { Router } from 'express';
import type { BundleSpec } from '@addon-kit/sdk/server';
import { addonSdkDir, buildSdkBundles, createSandboxApp, RUNTIME_BUNDLES, type AddonPages } from './addons/index.ts';
import { createHost, type Host } from './app.ts';
import {
  configFromEnvironment,
  drainDelaySeconds,
  resolveHostConfig,
  type HostConfig,
  type HostConfigInput,
} from './config.ts';
import type { Database } from './db/database.ts';
import { listenOn, type Listener } from './http/listen.ts';
import { listenForMetrics } from './metrics/index.ts';
import { hostStartingListener, sandboxStartingListener } from './http/starting-response.ts';
import type { Logger } from './logger.ts';
import { missingSecrets } from './secrets.ts';

/** What runs beside the platform on a listener of its own, started and stopped with it. */
export interface HostCompanion<T> {
  /** Browser bundles it needs besides the SDK's runtime ones (built with them, once). */
  bundles: BundleSpec[];
  /** What its listener answers until it serves (at once: nothing may wait for the start-up). */
  whileStarting: RequestListener;
  /** Its port, given the host's (0: a free one). */
  port(hostPort: number): number;
  /** Before any listener opens: slow work (opening an embedded database holds the event loop for seconds). */
  open(): Promise<void>;
  /** With the listeners open and the configuration final: its routes for the host, and where add-ons are mounted. */
  prepare(context: {
    db: Database;
    config: HostConfig;
    listener: Listener;
    log: (line: string) => void;
  }): Promise<{ routers: Router[]; addonPages?: AddonPages | undefined }>;
  /** Serves on its listener once the host's app (and logger) exist; what it reports of itself. */
  serve(logger: Logger): Promise<T>;
  close(): Promise<void>;
}

export interface StartOptions<T = unknown> {
  db: Database;
  dataDir: string;
  config?: HostConfigInput;
  /** Runs beside the platform (`start`'s demo); none: the platform alone. */
  companion?: HostCompanion<T> | undefined;
  log?: (line: string) => void;
  /**
   * Called once the listeners are open and answer `503` (see host/http/starting-response.ts), before the
   * companion is prepared and the apps are attached; start-up waits for it (tests hold start-up here).
   * `companionUrl` is undefined without a companion.
   */
  onListening?: (urls: { url: string; sandboxUrl: string; companionUrl: string | undefined }) => Promise<void>;
}

export interface RunningHost<T = unknown> {
  host: Host;
  server: Server;
  url: string;
  /** The add-on sandbox origin. */
  sandboxUrl: string;
  /** What the companion reported once serving, when there is one. */
  companion: T | undefined;
  /** The separate metrics listener's `/metrics`, when a metrics port is configured. */
  metricsUrl: string | undefined;
  /**
   * Shuts down gracefully: with `drain`, `/health` answers 503 `draining` for the configured drain seconds while
   * everything is still served (a balancer takes the host out of rotation); then the listeners stop taking
   * connections, requests in flight finish, idle keep-alive connections close, and background work stops.
   */
  close(options?: { drain?: boolean }): Promise<void>;
}

/** The configuration once the listeners have their ports: the URLs not given are the listeners' own. */
function listeningConfig<T>(
  options: StartOptions<T>,
  secrets: Partial<HostConfig>,
  requested: HostConfig,
  listeners: { host: Listener; sandbox: Listener },
): HostConfig {
  const explicitBaseUrl = options.config?.baseUrl ?? (process.env.ADDON_KIT_BASE_URL || undefined);
  return resolveHostConfig({
    ...secrets,
    dataDir: options.dataDir,
    ...options.config,
    port: listeners.host.port,
    baseUrl: explicitBaseUrl ?? `http://localhost:${listeners.host.port}`,
    // 127.0.0.1, not localhost: cookies ignore ports, so another host name keeps the host session cookie
    // away from the sandbox (the add-on origin) in development.
    sandboxUrl: requested.sandboxUrl ?? `http://127.0.0.1:${listeners.sandbox.port}`,
    addonSdkDir: addonSdkDir(requested),
  });
}

/** Serves the host and the sandbox origin (and the companion, if any) over a migrated database. */
export async function startHost<T = unknown>(options: StartOptions<T>): Promise<RunningHost<T>> {
  const log = options.log ?? (() => {});
  const given = Object.fromEntries(Object.entries(options.config ?? {}).filter(([, v]) => v !== undefined));
  // Secrets generated into the data directory only for what neither the environment nor the options configure.
  const secrets = await missingSecrets(options.dataDir, { ...configFromEnvironment(), ...given });
  const requested = resolveHostConfig({ ...secrets, dataDir: options.dataDir, ...options.config });

  // Listen first: with port 0 the URLs (issuer, sandbox origin, the companion's URLs) need the real ports.
  const listeners: Listener[] = [];
  const closeListeners = async () => {
    await Promise.all(listeners.map((l) => l.close()));
  };
  const listen = async (port: number, whileStarting: RequestListener) => {
    const listener = await listenOn(port, requested.bindAddress, whileStarting);
    listeners.push(listener);
    return listener;
  };
  const { companion } = options;
  try {
    await companion?.open();
    const hostListener = await listen(requested.port, hostStartingListener(options.db.kind));
    const sandboxPort = requested.sandboxPort ?? (requested.port === 0 ? 0 : requested.port + 1);
    const sandboxListener = await listen(sandboxPort, sandboxStartingListener);
    const companionListener = companion
      ? await listen(companion.port(requested.port), companion.whileStarting)
      : undefined;
    const config = listeningConfig(options, secrets, requested, { host: hostListener, sandbox: sandboxListener });
    const companionUrl = companionListener && `http://localhost:${companionListener.port}`;
    await options.onListening?.({ url: config.baseUrl, sandboxUrl: config.sandboxUrl!, companionUrl });
    await buildSdkBundles(addonSdkDir(config), [...RUNTIME_BUNDLES, ...(companion?.bundles ?? [])], log);
    const extra =
      companion && companionListener
        ? await companion.prepare({ db: options.db, config, listener: companionListener, log })
        : { routers: [] };

    const host = await createHost({ config, db: options.db, routers: extra.routers, addonPages: extra.addonPages });
    hostListener.attach(host.app);
    const bundleDir = addonSdkDir(config);
    sandboxListener.attach(
      createSandboxApp({ db: options.db, hostBaseUrl: config.baseUrl, sandboxUrl: config.sandboxUrl!, bundleDir }),
    );
    const reported = await companion?.serve(host.logger);
    const metricsListener =
      config.metricsPort === undefined
        ? undefined
        : await listenForMetrics(host.metrics, config.metricsPort, config.bindAddress);
    return {
      host,
      server: hostListener.server,
      url: config.baseUrl,
      sandboxUrl: config.sandboxUrl!,
      companion: reported,
      metricsUrl: metricsListener && `http://${config.bindAddress}:${metricsListener.port}/metrics`,
      async close(closeOptions = {}) {
        host.drain();
        for (const listener of listeners) listener.drain();
        const delay = closeOptions.drain ? drainDelaySeconds(config) : 0;
        if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay * 1000));
        await closeListeners();
        await metricsListener?.close();
        await companion?.close();
        await host.close();
      },
    };
  } catch (error) {
    await closeListeners();
    await companion?.close();
    throw error;
  }
}
