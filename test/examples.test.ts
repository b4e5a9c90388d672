/**
 * The `@example` blocks of the packages' public entry points compile: each fenced TypeScript block of an `@example`
 * in addon-sdk/, host/ and integrator-template/ is written out as a module and type-checked with the repository's
 * compiler settings, importing the packages by their public names (`@addon-kit/sdk`, `@addon-kit/host`, …), so an
 * example cannot drift from the API it shows.
 */
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'node_modules/.cache/examples');
const run = promisify(execFile);

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory())
        return ['node_modules', 'dist', 'test', 'addon-template'].includes(entry.name) ? [] : sources(path);
      return /\.tsx?$/.test(entry.name) ? [path] : [];
    }),
  );
  return nested.flat();
}

interface Example {
  file: string;
  line: number;
  lang: 'ts' | 'tsx';
  code: string;
}

/** The fenced ts/tsx blocks under `@example` tags of one source, their comment stars taken off. */
export function examplesOf(file: string, text: string): Example[] {
  const found: Example[] = [];
  const pattern = /@example\s*\n\s*\*\s*```(tsx?)\n([\s\S]*?)\n\s*\*\s*```/g;
  for (const match of text.matchAll(pattern)) {
    const code = match[2]!
      .split('\n')
      .map((line) => line.replace(/^\s*\* ?/, ''))
      .join('\n');
    found.push({ file, line: text.slice(0, match.index).split('\n').length, lang: match[1] as 'ts' | 'tsx', code });
  }
  return found;
}

afterAll(() => rm(OUT, { recursive: true, force: true }));

describe('@example blocks', () => {
  it('reads a block out of a comment [pattern]', () => {
    const text = "/**\n * Does it.\n * @example\n * ```ts\n * import { a } from 'b';\n *\n * a();\n * ```\n */";
    expect(examplesOf('x.ts', text)).toEqual([
      { file: 'x.ts', line: 3, lang: 'ts', code: "import { a } from 'b';\n\na();" },
    ]);
  });

  it('type-check against the packages’ public surfaces', { timeout: 180_000 }, async () => {
    const files = (
      await Promise.all(['addon-sdk', 'host', 'integrator-template'].map((dir) => sources(join(ROOT, dir))))
    ).flat();
    const examples = (
      await Promise.all(files.map(async (file) => examplesOf(relative(ROOT, file), await readFile(file, 'utf8'))))
    ).flat();
    // The entry points the packages' users start from carry one at least.
    const documented = new Set(examples.map((e) => e.file));
    for (const file of [
      'addon-sdk/worker/fetch.ts',
      'addon-sdk/host/mount.tsx',
      'host/app.ts',
      'integrator-template/server.ts',
    ])
      expect(documented, file).toContain(file);

    await rm(OUT, { recursive: true, force: true });
    await mkdir(OUT, { recursive: true });
    const written = await Promise.all(
      examples.map(async (example, i) => {
        const name = `example-${i}.${example.lang}`;
        // A module of its own (top-level await, no clash between examples' names).
        await writeFile(join(OUT, name), `${example.code}\nexport {};\n`);
        return [name, example] as const;
      }),
    );
    await writeFile(
      join(OUT, 'tsconfig.json'),
      JSON.stringify({
        extends: '../../../tsconfig.json',
        include: ['*.ts', '*.tsx'],
        exclude: [],
        compilerOptions: { noUnusedLocals: false },
      }),
    );
    const where = new Map(written.map(([name, e]) => [name, `${e.file}:${e.line}`]));
    const result = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', OUT], {
      cwd: ROOT,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    const errors = result.stdout
      .split('\n')
      .filter((line) => line.includes('error TS'))
      .map((line) => line.replace(/.*(example-\d+\.tsx?)/, (_, name: string) => where.get(name) ?? name));
    expect(errors).toEqual([]);
  });
});
