import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonTest } from '@addon-kit/sdk/testing';
import { formatSizeReport } from '@addon-kit/sdk/vite';
import { measureSize } from '#sdk/vite/size-report.ts';
import { createTempProject, sdkPath, type TempProject } from './temp-project.ts';

const VITE_PLUGIN = JSON.stringify(sdkPath('vite/index.ts'));
const readme = await readFile(new URL('../../../addon-sdk/README.md', import.meta.url), 'utf8');
/** The README's vite.config.ts, importing the plugin from this repository instead of the package. */
const README_CONFIG = /### In your vite\.config\.ts\n+```ts\n([\s\S]*?)```/
  .exec(readme)![1]!
  .replace("'@addon-kit/sdk/vite'", VITE_PLUGIN);

const SOURCE = `import { addOnContext, addOnEnvironment, render, Text } from ${JSON.stringify(sdkPath('worker/index.ts'))};
render(<Text>{\`built by vite for \${addOnContext().extension} in \${addOnEnvironment()}\`}</Text>);
`;

let project: TempProject;
beforeAll(async () => {
  project = await createTempProject({ 'src/index.tsx': SOURCE });
});
afterAll(async () => {
  await project?.remove();
});

/** Runs `vite build` (the CLI of the project's vite) with `config` as vite.config.ts. */
async function viteBuild(config: string): Promise<{ code: number | null; output: string }> {
  await project.write('vite.config.ts', config);
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [join(project.dir, 'node_modules/vite/bin/vite.js'), 'build'],
      { cwd: project.dir },
      (_error, stdout, stderr) =>
        done({ code: child.exitCode, output: stripVTControlCharacters(`${stdout}${stderr}`) }),
    );
  });
}

const configWith = (options: string, plugins = '') => `import { defineConfig } from 'vite';
import { addonKit } from ${VITE_PLUGIN};
export default defineConfig({ plugins: [addonKit({ entry: 'src/index.tsx', ${options} })${plugins}] });
`;

describe('addonKit()', () => {
  it('builds with the README vite.config.ts into dist/addon.js alone and prints its gzip size against 25 kB', async () => {
    const { code, output } = await viteBuild(README_CONFIG);
    expect(code).toBe(0);
    expect(await readdir(join(project.dir, 'dist'))).toEqual(['addon.js']);
    const size = measureSize('dist/addon.js', await readFile(join(project.dir, 'dist/addon.js')), 25 * 1024);
    expect(output).toContain(`[plugin addon-kit] ${formatSizeReport(size)}\n`);
    expect(formatSizeReport(size)).toMatch(/^dist\/addon\.js +\d+\.\d kB {2}gzip +\d+\.\d kB \/ budget 25\.0 kB ok$/);
  });

  it('writes a script that runs in the sandbox', async () => {
    const addon = await startAddonTest({
      script: join(project.dir, 'dist/addon.js'),
      extension: 'people.list.send_message',
      environment: 'beta',
    });
    try {
      await addon.waitFor(() =>
        expect(addon.tree).toEqual([
          { type: 'Text', props: { strong: false }, children: ['built by vite for people.list.send_message in beta'] },
        ]),
      );
      expect(addon.events.filter((e) => e.type !== 'fetch')).toEqual([]);
    } finally {
      await addon.close();
    }
  });

  it('fails the build over the budget and keeps the script for inspection [over budget]', async () => {
    const { code, output } = await viteBuild(configWith("outFile: 'dist/big.js', budget: 1000"));
    const size = measureSize('dist/big.js', await readFile(join(project.dir, 'dist/big.js')), 1000);
    expect(code).toBe(1);
    expect(size.ok).toBe(false);
    expect(output).toContain(
      `${formatSizeReport(size)}: the add-on is over its gzip budget of 1000 bytes; trim it or raise the budget.`,
    );
  });

  it("only warns over the budget with overBudget: 'warn' [warn]", async () => {
    const { code, output } = await viteBuild(configWith("outFile: 'dist/warned.js', budget: 1000, overBudget: 'warn'"));
    const size = measureSize('dist/warned.js', await readFile(join(project.dir, 'dist/warned.js')), 1000);
    expect(code).toBe(0);
    expect(output).toContain(`[plugin addon-kit] ${formatSizeReport(size)} (gzip budget exceeded)`);
  });

  it('fails when another plugin emits a second file [extra file]', async () => {
    const emitter =
      ", { name: 'emitter', generateBundle() { this.emitFile({ type: 'asset', fileName: 'extra.txt', source: 'x' }); } }";
    const { code, output } = await viteBuild(configWith("outFile: 'dist/emitted.js'", emitter));
    expect(code).toBe(1);
    expect(output).toContain(
      'an add-on must build into the single script emitted.js, but this build also emits extra.txt: ' +
        'remove what needs them (workers, CSS, assets, or a plugin that emits files).',
    );
    expect(await readdir(join(project.dir, 'dist'))).not.toContain('extra.txt');
  });
});
