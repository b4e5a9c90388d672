/**
 * `addon-kit start`: seeds a new database with the development data, then the host (host/main.ts) with the demo beside
 * it as its companion (demo pages, sample add-on, template integrator: host/demo/start-demo.ts) unless `--no-demo`,
 * and the CLI channel for commands run while it runs on the embedded database.
 */
import type { RunningDemo } from '../demo/start-demo.ts';
import type { DemoLogin } from '../demo/seed/seed-on-first-start.ts';
import type { RunningHost } from '../main.ts';
import { integer, parse, type ParsedArgs } from './args.ts';
import { START_FORM } from './command-specs.ts';
import type { CommandIo } from './io.ts';
import { openStorage, storageLocation, type Storage } from './storage.ts';

/** Runs until SIGINT/SIGTERM; resolves with the exit code. */
export async function startCommand(argv: string[], io: CommandIo, signal?: AbortSignal): Promise<number> {
  const { values } = parse(argv, START_FORM.options);
  const checked = checkStartOptions(values, io);
  if (checked === undefined) return 2;
  const { port, integratorPort, sandboxPort, demo } = checked;
  const stopped = stopSignals(signal);
  const started = Date.now();
  if (demo) {
    // A first start creates the demo integrator's embedded database on another core while the host creates its
    // own (each takes seconds); the integrator's opening waits for it. Nothing happens on PostgreSQL or later starts.
    const { prepareIntegratorDatabase } = await import('@addon-kit/integrator-template/database');
    void prepareIntegratorDatabase(storageLocation(values), (message) =>
      io.err(`addon-kit: could not create the integrator's database in the background (${message}); creating it now`),
    );
  }
  const opening = openStorage(values, io);
  // Loaded only once the arguments are good (the host pulls in the whole OAuth server), while the database opens:
  // module loading runs largely on the loader thread, the embedded database's start-up on this one.
  const hostModule = import('../main.ts');
  const demoModule = demo ? import('../demo/start-demo.ts') : undefined;
  hostModule.catch(() => {}); // a failure surfaces where it is awaited, after the database's own errors
  demoModule?.catch(() => {});
  const storage = await opening;
  const { seedOnFirstStart } = await import('../demo/seed/seed-on-first-start.ts');
  const logins = await seedOnFirstStart(storage.db, {
    dataDir: storage.dataDir,
    demoPassword: values['demo-password'],
    log: io.err,
  });
  const { startHost } = await hostModule;
  const companion = demoModule
    ? (await demoModule).demoCompanion({
        dataDir: storage.dataDir,
        integratorDatabaseUrl: storage.databaseUrl,
        integratorPort,
      })
    : undefined;
  const running = await startHost({
    db: storage.db,
    dataDir: storage.dataDir,
    // The base URL defaults to http://localhost:<the port actually listened on>.
    config: { port, baseUrl: values['base-url'], sandboxPort },
    companion,
    log: io.err,
  });
  // The embedded database is this process's alone: CLI commands that need it are run here, sent over the channel.
  const channel =
    storage.db.kind === 'pglite' ? await (await import('./cli-channel.ts')).openCliChannel(storage, io.err) : undefined;

  printAddresses(io, running, storage, Date.now() - started, logins);

  const stop = await stopped;
  io.err('addon-kit: shutting down…');
  await channel?.close();
  await running.close(stop);
  await storage.db.close();
  return 0;
}

/** The ports and the demo switch, or undefined when they contradict each other (said on stderr: exit 2). */
function checkStartOptions(
  values: ParsedArgs<typeof START_FORM.options>['values'],
  io: CommandIo,
): { port: number; integratorPort?: number; sandboxPort?: number; demo: boolean } | undefined {
  const port =
    integer(values.port, 'port', 0, 65535) ?? (process.env.ADDON_KIT_PORT ? Number(process.env.ADDON_KIT_PORT) : 4000);
  const integratorPort = integer(values['integrator-port'], 'integrator-port', 0, 65535);
  const sandboxPort = integer(values['sandbox-port'], 'sandbox-port', 0, 65535);
  // ADDON_KIT_DEMO=false is --no-demo for a host configured by its environment alone (a service manager's unit).
  const demo = !values['no-demo'] && process.env.ADDON_KIT_DEMO !== 'false';
  if (!demo && integratorPort !== undefined) {
    io.err("addon-kit: --integrator-port is the demo integrator's; it makes no sense with --no-demo");
    return undefined;
  }
  if (values['demo-password'] !== undefined && values['demo-password'].length < 8) {
    io.err('addon-kit: --demo-password must be at least 8 characters');
    return undefined;
  }
  return { port, integratorPort, sandboxPort, demo };
}

/**
 * Listens for the stop signals — before anything is printed: whoever reads "listening" may stop us at once.
 * SIGTERM (a service manager, a rolling restart) drains first; SIGINT (Ctrl-C at a terminal) does not wait.
 */
function stopSignals(signal: AbortSignal | undefined): Promise<{ drain: boolean }> {
  return new Promise<{ drain: boolean }>((resolve) => {
    process.once('SIGINT', () => resolve({ drain: false }));
    process.once('SIGTERM', () => resolve({ drain: true }));
    signal?.addEventListener('abort', () => resolve({ drain: false }), { once: true });
  });
}

/** Where the host, the demo and the sandbox listen, and the demo logins. */
function printAddresses(
  io: CommandIo,
  running: RunningHost<RunningDemo>,
  storage: Storage,
  readyMs: number,
  logins: readonly DemoLogin[],
): void {
  const shown = running.companion;
  io.out(
    `addon-kit host listening on ${running.url} (${storage.db.kind === 'pglite' ? `embedded PGlite in ${storage.dataDir}` : 'PostgreSQL'}; ready in ${readyMs} ms)`,
  );
  io.out(`  health:            ${running.url}/health`);
  if (running.metricsUrl) io.out(`  metrics:           ${running.metricsUrl}`);
  io.out(`  sign in:           ${running.url}/login`);
  if (shown) io.out(`  demo Lists:        ${running.url}/demo/lists`);
  if (shown?.demoListUrl)
    io.out(`  demo List page:    ${shown.demoListUrl}   (the sample add-on "Send a message": Authorize, then send)`);
  io.out(`  add-on sandbox:    ${running.sandboxUrl}`);
  if (shown) io.out(`  integrator:        ${shown.integrator.url}`);
  if (shown?.integrator.login)
    io.out(`  integrator login:  ${shown.integrator.login.username} / ${shown.integrator.login.password}`);
  io.out('demo logins (email / password):');
  for (const login of logins)
    io.out(`${login.email} / ${login.password ?? '(the password chosen when this database was first seeded)'}`);
}
