/**
 * The three packages stand alone: no import reaches across a workspace boundary through `../` (the root's tests
 * and benchmarks use the packages by name or the root's test-only `#host/…` alias), no package exports its
 * internals, each workspace type-checks on its own, and the template integrator imports nothing of the host.
 */
import { isBuiltin } from 'node:module';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
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

/**
 * Every module specifier a file imports or re-exports (static and dynamic), read by TypeScript's own pre-processor:
 * an import written in a comment (an `@example`) is not one.
 */
function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
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

  it.each(WORKSPACES)(
    '%s declares every package its sources import (packed alone, nothing comes from the root)',
    async (workspace) => {
      const pkg = JSON.parse(await readFile(join(ROOT, workspace, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      const declared = new Set([
        pkg.name,
        ...Object.keys(pkg.dependencies ?? {}),
        ...Object.keys(pkg.devDependencies ?? {}),
        ...Object.keys(pkg.peerDependencies ?? {}),
      ]);
      const undeclared: string[] = [];
      for (const file of await sources(workspace)) {
        // A scaffold's template is a package of its own, with its own package.json.
        if (relative(join(ROOT, workspace), file).startsWith(join('cli', 'create', 'addon-template') + sep)) continue;
        for (const spec of specifiers(await readFile(file, 'utf8'))) {
          // Relative and absolute paths (a page's browser script names a URL), built-ins, the test-only alias.
          if (/^[./#]/.test(spec) || spec.startsWith('node:') || isBuiltin(spec)) continue;
          const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
          // A package imported for its types only is declared by its @types package.
          if (!declared.has(name) && !declared.has(`@types/${name}`))
            undeclared.push(`${relative(ROOT, file)} → ${spec}`);
        }
      }
      expect(undeclared).toEqual([]);
    },
  );

  it.each(WORKSPACES)(
    '%s builds what it needs when packed from a fresh clone: the workspaces it depends on, then itself',
    async (workspace) => {
      const pkg = JSON.parse(await readFile(join(ROOT, workspace, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
        dependencies?: Record<string, string>;
      };
      const folderOf: Record<string, string> = {
        '@addon-kit/sdk': 'addon-sdk',
        '@addon-kit/integrator-template': 'integrator-template',
        '@addon-kit/host': 'host',
      };
      const needed = Object.keys(pkg.dependencies ?? {})
        .filter((name) => name in folderOf)
        .map((name) => `npm --prefix ../${folderOf[name]} run build`);
      const steps = pkg.scripts.prepack!.split(' && ');
      // Each workspace it depends on is built first (their dist/ holds the types its own build compiles against).
      expect(steps.slice(0, -1).sort()).toEqual(needed.sort());
      expect(steps.at(-1)).toBe('npm run build');
    },
  );

  it('finds the imports it checks [self-check]', () => {
    const text =
      "import a from '../x.ts';\nexport { b } from './y.ts';\nconst c = await import('../../z.ts');\nimport './side.ts';\nimport type { D } from '@addon-kit/sdk';\n/**\n * @example\n * import { e } from 'vitest';\n */";
    expect(specifiers(text)).toEqual(['../x.ts', './y.ts', '../../z.ts', './side.ts', '@addon-kit/sdk']);
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
