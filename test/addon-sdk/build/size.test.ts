import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildAddonSdk } from '#sdk/build/build.ts';
import { measureBundles } from '#sdk/build/size.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('buildAddonSdk()', () => {
  it('builds every bundle within its gzip budget (worker SDK ≤ 25 kB, sample add-on and host embedder ≤ 20 kB)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'addon-sdk-size-'));
    dirs.push(dir);
    await buildAddonSdk({ outDir: dir });
    const sizes = await measureBundles(dir);
    expect(sizes.map((s) => [s.file, s.budget ?? null, s.ok])).toEqual([
      ['host.js', 20 * 1024, true],
      ['sandbox-bootstrap.js', null, true],
      ['worker-sdk.js', 25 * 1024, true],
      ['addons/send-message.js', 20 * 1024, true],
    ]);
  });
});
