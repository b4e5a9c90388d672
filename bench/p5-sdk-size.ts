/**
 * P5: gzip sizes of the SDK bundles, built afresh with vite into a temporary folder, against their budgets:
 * the worker SDK with the UI runtime ≤ 25 kB, the host embedder ≤ 20 kB. A value against a budget, not A/B.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAddonSdk } from '#sdk/build/build.ts';
import { HOST_BUNDLE, WORKER_BUNDLE } from '#sdk/build/bundles.ts';
import { measureBundles } from '#sdk/build/size.ts';
import type { Benchmark } from './runner/context.ts';
import { progress } from './runner/rounds.ts';
import { formatRatio, valueRow } from './runner/table.ts';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;

export const runP5: Benchmark = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'addon-kit-bench-sdk-'));
  try {
    await buildAddonSdk({ outDir: dir, bundles: [WORKER_BUNDLE, HOST_BUNDLE] });
    const sizes = await measureBundles(dir, [WORKER_BUNDLE, HOST_BUNDLE]);
    progress(`P5: ${sizes.map((s) => `${s.file} gzip ${kb(s.gzip)}`).join(' · ')}`);
    return sizes.map((s) => {
      const budget = s.budget!;
      const name = s.file === WORKER_BUNDLE.file ? 'worker SDK + UI' : 'host embedder';
      return valueRow({
        figure: `P5 SDK gzip: ${name} (${s.file}) ÷ budget`,
        a: kb(s.gzip),
        b: kb(budget),
        ratio: formatRatio(s.gzip / budget),
        value: s.gzip,
        goal: { on: 'a', op: '<=', value: budget, text: `≤ ${kb(budget)}` },
      });
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
