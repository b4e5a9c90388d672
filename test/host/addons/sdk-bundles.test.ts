import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SAMPLE_ADDON_BUNDLE } from '@addon-kit/sdk/server';
import { buildSdkBundles, RUNTIME_BUNDLES } from '@addon-kit/host/addons';

const SDK_DIR = fileURLToPath(new URL('../../../addon-sdk', import.meta.url));

describe('buildSdkBundles()', () => {
  it('builds once, reuses the bundles while the sources are unchanged, keeps them when only the workspace dist/ changed, and rebuilds when an output or the stamp is off', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'addon-kit-bundles-'));
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);
    const bundles = [...RUNTIME_BUNDLES, SAMPLE_ADDON_BUNDLE];

    await buildSdkBundles(dir, bundles, log);
    expect(lines.shift()).toBe(
      `addon-kit: building host.js, sandbox-bootstrap.js, addons/send-message.js into ${dir}…`,
    );
    expect(lines.shift()).toMatch(
      /^addon-kit: built host\.js, sandbox-bootstrap\.js, addons\/send-message\.js in \d+ ms$/,
    );
    const sample = await readFile(join(dir, SAMPLE_ADDON_BUNDLE.file), 'utf8');
    expect(sample).toContain('send');

    await buildSdkBundles(dir, bundles, log);
    expect(lines).toEqual([`addon-kit: add-on SDK bundles in ${dir} are up to date`]);
    expect(await readFile(join(dir, SAMPLE_ADDON_BUNDLE.file), 'utf8')).toBe(sample);

    // Packing the SDK (create addon does) rewrites its dist/, which the repository's bundles are not built from.
    lines.length = 0;
    const distProbe = join(SDK_DIR, 'dist', `digest-probe-${process.pid}.js`);
    await mkdir(dirname(distProbe), { recursive: true });
    await writeFile(distProbe, 'export {};\n');
    try {
      await buildSdkBundles(dir, bundles, log);
    } finally {
      await rm(distProbe);
    }
    expect(lines).toEqual([`addon-kit: add-on SDK bundles in ${dir} are up to date`]);

    lines.length = 0;
    await rm(join(dir, 'host.js'));
    await buildSdkBundles(dir, bundles, log);
    expect(lines[0]).toMatch(/^addon-kit: building /);

    lines.length = 0;
    await writeFile(join(dir, 'sources.sha256'), 'stale\n');
    await buildSdkBundles(dir, RUNTIME_BUNDLES, log);
    expect(lines[0]).toBe(`addon-kit: building host.js, sandbox-bootstrap.js into ${dir}…`);
    await rm(dir, { recursive: true, force: true });
  });
});
