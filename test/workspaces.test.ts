/**
 * The three packages stand alone: no import reaches across a workspace boundary through `../` (the root's tests
 * and benchmarks use the packages by name or the root's test-only `#host/…` alias), no package exports its
 * internals, each workspace type-checks on its own, and the template integrator imports nothing of the host.
 */
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WORKSPACES = ['addon-sdk', 'integrator-template', 'host'];

/** Source files under `dir` (no node_modules, no build output). */
async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.(ts|tsx|js|mjs)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .filter(
      (f) =>
        !relative(ROOT, f)
          .split(sep)
          .some((part) => part === 'node_modules' || part === 'dist'),
    );
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function specifiers(text: string): string[] {
  const found = [
    ...text.matchAll(/(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]/gm),
    ...text.matchAll(/(?:^|[\s;(])import\s*\(\s*['"]([^'"]+)['"]\s*\)/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
  ];
  return found.map((m) => m[1]!);
}

/** `file → specifier` for each relative import of a file under `dir` that resolves outside `allowed`. */
async function crossings(dir: string, allowed: (target: string) => boolean): Promise<string[]> {
  const out: string[] = [];
  for (const file of await sources(dir)) {
    for (const spec of specifiers(await readFile(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (!allowed(target)) out.push(`${relative(ROOT, file)} → ${spec}`);
    }
  }
  return out;
}

describe('workspace boundaries', () => {
  it.each(WORKSPACES)('%s imports nothing outside its folder through a relative path', async (workspace) => {
    const inside = (target: string) => target.startsWith(join(ROOT, workspace) + sep);
    expect(await crossings(workspace, inside)).toEqual([]);
  });

  it('the template integrator imports nothing of the host, by path or by name', async () => {
    const offending: string[] = [];
    for (const file of await sources('integrator-template')) {
      for (const spec of specifiers(await readFile(file, 'utf8'))) {
        if (spec.includes('../host') || spec.startsWith('@addon-kit/'))
          offending.push(`${relative(ROOT, file)} → ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it.each(['test', 'bench'])(
    '%s/ reaches the packages by their names, never into a workspace folder by path',
    async (dir) => {
      const intoWorkspace = (target: string) => WORKSPACES.some((w) => target.startsWith(join(ROOT, w) + sep));
      expect(await crossings(dir, (target) => !intoWorkspace(target))).toEqual([]);
    },
  );

  it.each(WORKSPACES)('%s exports no internal/* entry: its exports are its public surface', async (workspace) => {
    const pkg = JSON.parse(await readFile(join(ROOT, workspace, 'package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(Object.keys(pkg.exports).filter((key) => key.includes('internal'))).toEqual([]);
  });

  it.each(['test', 'bench', ...WORKSPACES])("%s/ imports no package's internal/ entry", async (dir) => {
    const offending: string[] = [];
    for (const file of await sources(dir)) {
      for (const spec of specifiers(await readFile(file, 'utf8'))) {
        if (/^@addon-kit\/[^/]+\/internal\//.test(spec)) offending.push(`${relative(ROOT, file)} → ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('finds the imports it checks [self-check]', () => {
    const text =
      "import a from '../x.ts';\nexport { b } from './y.ts';\nconst c = await import('../../z.ts');\nimport './side.ts';\nimport type { D } from '@addon-kit/sdk';";
    expect(specifiers(text)).toEqual(['../x.ts', './y.ts', '@addon-kit/sdk', '../../z.ts', './side.ts']);
  });

  it('type-checks each workspace on its own as part of npm test', async () => {
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.typecheck).toBe('tsc --noEmit && tsc -p addon-sdk && tsc -p integrator-template && tsc -p host');
    for (const workspace of WORKSPACES) {
      const tsconfig = JSON.parse(await readFile(join(ROOT, workspace, 'tsconfig.json'), 'utf8')) as {
        extends?: string;
        compilerOptions: { strict: boolean };
      };
      // Standalone: a copy of the workspace (a scaffolded integrator) has no parent config to extend.
      expect(tsconfig.extends).toBeUndefined();
      expect(tsconfig.compilerOptions.strict).toBe(true);
    }
  });
});
