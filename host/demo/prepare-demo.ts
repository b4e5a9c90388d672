/** What `start` adds to a seeded database for the demo: built bundles, the sample add-on, Lists with results. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SAMPLE_ADDON_BUNDLE } from '@addon-kit/sdk/server';
import { addonSdkDir, buildSdkBundles, RUNTIME_BUNDLES } from '../addons/index.ts';
import { createSecretBox } from '../crypto/secret-box.ts';
import type { HostConfig } from '../config.ts';
import type { Database } from '../db/database.ts';
import { demoListId, runDemoLists } from './demo-lists.ts';
import { ensureSampleAddon, type SampleAddon } from './sample-addon.ts';

/** The demo, ready to serve. */
export interface PreparedDemo {
  sampleAddon: SampleAddon;
  /** The List the printed demo URL opens. */
  listId: string | undefined;
}

/** Builds the bundles, registers (or reuses) the sample add-on for the integrator at `integratorUrl`, runs the Lists never run. */
export async function prepareDemo(options: {
  db: Database;
  config: HostConfig;
  integratorUrl: string;
  env?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
  now?: Date;
  /** Build the SDK bundles and the sample add-on first (default true; `start` has built them already). */
  build?: boolean;
}): Promise<PreparedDemo> {
  const log = options.log ?? (() => {});
  const dir = addonSdkDir(options.config);
  if (options.build !== false) await buildSdkBundles(dir, [...RUNTIME_BUNDLES, SAMPLE_ADDON_BUNDLE], log);
  const sampleBundle = await readFile(join(dir, SAMPLE_ADDON_BUNDLE.file), 'utf8');
  const sampleAddon = await ensureSampleAddon(options.db, createSecretBox(options.config.encryptionKeys), {
    integratorUrl: options.integratorUrl,
    bundle: sampleBundle,
    log,
    ...(options.env ? { env: options.env } : {}),
  });
  const ran = await runDemoLists(options.db, options.now ?? new Date());
  if (ran) log(`addon-kit: ran ${ran} demo List(s)`);
  return { sampleAddon, listId: await demoListId(options.db) };
}
