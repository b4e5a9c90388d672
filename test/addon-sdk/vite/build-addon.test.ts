import { execFile } from 'node:child_process';
import { cp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { Script } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_ADDON_BUNDLE } from '#sdk/build/bundles.ts';
import { ADDON_BUDGET_BYTES, buildAddon, type AddonBuildResult } from '@addon-kit/sdk/vite';
import { createTempProject, textAddon, type TempProject } from './temp-project.ts';

const projects: TempProject[] = [];
afterAll(async () => {
  for (const project of projects) await project.remove();
});
async function project(files: Record<string, string> = {}): Promise<TempProject> {
  const created = await createTempProject(files);
  projects.push(created);
  return created;
}

/** Compiles `code` as a classic script (what importScripts runs): throws on import/export statements. */
const classicScript = (code: string) => new Script(code, { filename: 'addon.js' });

describe('buildAddon()', () => {
  it('builds the sample add-on into one minified classic script and measures it against the 25 kB budget', async () => {
    const { dir } = await project();
    const result = await buildAddon({ entry: SAMPLE_ADDON_BUNDLE.entry, outFile: join(dir, 'out/send-message.js') });
    const code = await readFile(join(dir, 'out/send-message.js'));
    expect(await readdir(join(dir, 'out'))).toEqual(['send-message.js']);
    expect(result).toEqual({
      file: join(dir, 'out/send-message.js'),
      bytes: code.byteLength,
      gzip: gzipSync(code, { level: 9 }).byteLength,
      budget: 25 * 1024,
      ok: true,
    });
    expect(ADDON_BUDGET_BYTES).toBe(25 * 1024);
    const text = code.toString('utf8');
    expect(text.startsWith('(function(){')).toBe(true);
    expect(text.trimEnd().endsWith('})();')).toBe(true);
    expect(() => classicScript(text)).not.toThrow();
    // Minified: the sample's own identifiers are gone, its strings stay; the SDK (remote-dom, preact) is inside.
    expect(text).not.toContain('loadPeople');
    expect(text).toContain('Write your message');
    expect(text).toContain('ui-text-area');
    expect(text.split('\n').length).toBeLessThan(5);
  });

  it('inlines a dynamic import into the one script [fixture]', async () => {
    const { dir } = await project();
    const entry = fileURLToPath(new URL('../fixtures/lazy-addon.tsx', import.meta.url));
    const result = await buildAddon({ entry, outFile: join(dir, 'dist/addon.js') });
    expect(await readdir(join(dir, 'dist'))).toEqual(['addon.js']);
    const text = await readFile(result.file, 'utf8');
    expect(text).toContain('inlined-into-the-one-script');
    expect(() => classicScript(text)).not.toThrow();
    expect(result.ok).toBe(true);
  });

  it('resolves entry and outFile against root, dist/addon.js by default', async () => {
    const { dir } = await project({ 'src/index.tsx': textAddon('relative') });
    const result = await buildAddon({ entry: 'src/index.tsx', root: dir });
    expect(result.file).toBe(join(dir, 'dist/addon.js'));
    expect(await readFile(result.file, 'utf8')).toContain('relative');
  });

  it("bundles one preact when the project has its own copy beside the SDK's [dedupe]", async () => {
    // The project's node_modules holds only a copy of preact; the SDK resolves its own from the repository.
    const own = await project();
    await rm(join(own.dir, 'node_modules'));
    await cp(
      fileURLToPath(new URL('../../../node_modules/preact', import.meta.url)),
      join(own.dir, 'node_modules/preact'),
      { recursive: true },
    );
    await own.write('src/index.tsx', textAddon('{String(useState(1)[0])}', "import { useState } from 'preact/hooks';"));
    const result = await buildAddon({ entry: 'src/index.tsx', root: own.dir });
    // A regular expression of preact's DOM property code: once per preact copy in the bundle.
    const copies = (await readFile(result.file, 'utf8')).split('acit|ex(?:s|g|n|p|$)').length - 1;
    expect(copies).toBe(1);
  });

  it('resolves ok: false over the budget and still writes the script [over budget]', async () => {
    const { dir } = await project({ 'src/index.tsx': textAddon('big') });
    const result = await buildAddon({ entry: 'src/index.tsx', root: dir, budget: 1000 });
    expect({ budget: result.budget, ok: result.ok, over: result.gzip > 1000 }).toEqual({
      budget: 1000,
      ok: false,
      over: true,
    });
    expect((await readFile(join(dir, 'dist/addon.js'))).byteLength).toBe(result.bytes);
  });

  it('refuses a CSS import, naming the importing file, and writes nothing [css]', async () => {
    const { dir } = await project({
      'src/index.tsx': textAddon('styled', "import './style.css';"),
      'src/style.css': 'p { color: red }',
    });
    const error = await buildAddon({ entry: 'src/index.tsx', root: dir }).catch((e: Error) => e);
    expect(stripVTControlCharacters((error as Error).message)).toContain(
      "src/index.tsx imports ./style.css: add-ons cannot ship CSS: the host page renders the add-on's UI with its own " +
        'allow-listed components (style them with their props, e.g. tone, variant, gap).',
    );
    expect((await readdir(dir)).sort()).toEqual(['node_modules', 'src']);
  });

  it('refuses a CSS file a package export points at [css from a package]', async () => {
    const { dir } = await project({
      'src/index.tsx': textAddon('styled', "import 'styles-pkg';"),
      'src/node_modules/styles-pkg/package.json': JSON.stringify({
        name: 'styles-pkg',
        exports: { '.': './theme.css' },
      }),
      'src/node_modules/styles-pkg/theme.css': 'p { color: red }',
    });
    const error = await buildAddon({ entry: 'src/index.tsx', root: dir }).catch((e: Error) => e);
    expect(stripVTControlCharacters((error as Error).message)).toContain(
      'src/index.tsx imports styles-pkg: add-ons cannot ship CSS',
    );
  });

  it('refuses image, ?url and ?worker imports, and allows ?raw and JSON [asset]', async () => {
    const { dir } = await project({
      'src/image.tsx': textAddon('img', "import logo from './logo.png'; console.log(logo);"),
      'src/url.tsx': textAddon('url', "import file from './notes.txt?url'; console.log(file);"),
      'src/worker.tsx': textAddon('worker', "import Helper from './helper.ts?worker'; console.log(Helper);"),
      'src/raw.tsx': textAddon(
        'raw',
        "import notes from './notes.txt?raw'; import data from './data.json'; console.log(notes, data.word);",
      ),
      'src/logo.png': '\x89PNG',
      'src/notes.txt': 'raw notes text',
      'src/helper.ts': 'export {};',
      'src/data.json': '{ "word": "json word" }',
    });
    const messages = await Promise.all(
      ['src/image.tsx', 'src/url.tsx', 'src/worker.tsx'].map((entry) =>
        buildAddon({ entry, root: dir, outFile: 'dist/refused.js' }).then(
          () => 'built',
          (e: Error) => stripVTControlCharacters(e.message),
        ),
      ),
    );
    expect(messages[0]).toContain(
      'src/image.tsx imports ./logo.png: an add-on is one script and cannot ship asset files: ' +
        'the host shows images only from https URLs (host the file and pass its https URL to <Image src>)',
    );
    expect(messages[1]).toContain(
      'src/url.tsx imports ./notes.txt?url: an add-on is one script and cannot ship asset files',
    );
    expect(messages[2]).toContain(
      'src/worker.tsx imports ./helper.ts?worker: an add-on already runs in a worker and is one script',
    );
    const raw = await buildAddon({ entry: 'src/raw.tsx', root: dir, outFile: 'dist/raw.js' });
    const code = await readFile(raw.file, 'utf8');
    expect([code.includes('raw notes text'), code.includes('json word')]).toEqual([true, true]);
    expect(await readdir(join(dir, 'dist'))).toEqual(['raw.js']);
  });

  it('adds an inline source map in development and leaves it out of the measured size [development]', async () => {
    const { dir } = await project({ 'src/index.tsx': textAddon('dev build') });
    const production = await buildAddon({ entry: 'src/index.tsx', root: dir, outFile: 'dist/prod.js' });
    const development = await buildAddon({
      entry: 'src/index.tsx',
      root: dir,
      outFile: 'dist/dev.js',
      mode: 'development',
    });
    const text = await readFile(development.file, 'utf8');
    const [code, map] = text.split('//# sourceMappingURL=data:application/json;');
    expect(map).toMatch(/^(charset=utf-8;)?base64,/);
    expect(development.bytes).toBe(Buffer.byteLength(code!.replace(/\n$/, '')));
    expect(development.gzip).toBeLessThan(ADDON_BUDGET_BYTES);
    expect(await readFile(production.file, 'utf8')).not.toContain('sourceMappingURL');
  });

  it('rebuilds on change, reports a syntax error and keeps watching [watch]', async () => {
    const source = await project({ 'src/index.tsx': textAddon('version one') });
    const reports: Array<{ built: AddonBuildResult } | { error: string }> = [];
    let wake = () => {};
    const next = (count: number) =>
      new Promise<void>((done) => {
        wake = () => reports.length >= count && done();
        wake();
      });
    const watcher = await buildAddon({
      entry: 'src/index.tsx',
      root: source.dir,
      watch: {
        onBuild: (built) => (reports.push({ built }), wake()),
        onError: (error) => (reports.push({ error: stripVTControlCharacters(error.message) }), wake()),
      },
    });
    try {
      expect(reports).toHaveLength(1);
      const file = join(source.dir, 'dist/addon.js');
      expect(await readFile(file, 'utf8')).toContain('version one');

      await source.write('src/index.tsx', `${textAddon('version two')}const broken = ;\n`);
      await next(2);
      expect('error' in reports[1]! && reports[1].error).toMatch(/src\/index\.tsx/);
      expect(await readFile(file, 'utf8')).toContain('version one');

      await source.write('src/index.tsx', textAddon('version three'));
      await next(3);
      expect(reports.map((r) => ('built' in r ? `built ${r.built.file}` : 'error'))).toEqual([
        `built ${file}`,
        'error',
        `built ${file}`,
      ]);
      expect(await readFile(file, 'utf8')).toContain('version three');
    } finally {
      await watcher.close();
    }
  });

  it('runs the README example: builds, prints the size line and sets the exit code', async () => {
    const readme = await readFile(new URL('../../../addon-sdk/README.md', import.meta.url), 'utf8');
    const example = /### Building from a script\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    const { dir } = await project({
      'package.json': JSON.stringify({ type: 'module' }),
      'src/index.tsx': textAddon('from the README'),
      'build.ts': example.replace(
        "'@addon-kit/sdk/vite'",
        JSON.stringify(fileURLToPath(new URL('../../../addon-sdk/vite/index.ts', import.meta.url))),
      ),
    });
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', 'build.ts'],
        { cwd: dir },
        (_error, stdout, stderr) => done({ code: child.exitCode, stdout, stderr }),
      );
    });
    expect(run.stderr).toBe('');
    const built = await readFile(join(dir, 'dist/addon.js'));
    const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
    expect(run).toEqual({
      code: 0,
      stdout: `${join(dir, 'dist/addon.js')} ${kb(built.byteLength).padStart(9)}  gzip ${kb(gzipSync(built, { level: 9 }).byteLength).padStart(8)} / budget 25.0 kB ok\n`,
      stderr: '',
    });
  });
});
