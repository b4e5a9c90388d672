/**
 * The host's lower layers never reach up: storage (db/, crypto/) knows nothing of logins, authentication
 * (auth/) knows nothing of pages, routers or the product domains that use it, and outbound HTTP (outbound/)
 * knows nothing of the host at all. Read from the import lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const HOST = resolve(dirname(fileURLToPath(import.meta.url)), '../../host');

/** Top-level entries of host/ above the auth layer. */
const ABOVE_AUTH = [
  'pages',
  'developer',
  'demo',
  'cli',
  'oauth',
  'addons',
  'people',
  'api',
  'current',
  'http',
  'limits',
  'jsonapi',
  'webhooks',
  'app.ts',
  'main.ts',
  'index.ts',
];
const RULES: { layer: string; forbidden: string[] }[] = [
  { layer: 'db', forbidden: ['auth', ...ABOVE_AUTH] },
  { layer: 'crypto', forbidden: ['auth', 'db', ...ABOVE_AUTH] },
  // The directory (organizations, people, roles) sits under auth: it knows nothing of logins either.
  { layer: 'directory', forbidden: ['auth', ...ABOVE_AUTH] },
  { layer: 'auth', forbidden: ABOVE_AUTH },
  // Outbound HTTP is shared by the add-on runtime and any other caller of an organization's servers: it knows none of them.
  { layer: 'outbound', forbidden: ['auth', 'db', 'crypto', ...ABOVE_AUTH] },
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The relative module specifiers of a file's static and dynamic imports and re-exports. */
function relativeImports(text: string): string[] {
  const found = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.[^'"]+)['"]/gm)].map(
    (m) => m[1]!,
  );
  return [...new Set(found)];
}

/** The host/ top-level entry (folder or file) a relative import from `file` lands in. */
function landsIn(file: string, specifier: string): string {
  return relative(HOST, resolve(dirname(file), specifier)).split(sep)[0]!;
}

describe('host layering', () => {
  it('finds import lines of every kind [scanner]', () => {
    const text =
      "import a from './a.ts';\nimport type { B } from '../b.ts';\nexport { c } from '../../c.ts';\nconst d = await import('./d.ts');\nimport './e.ts';\nimport x from 'express';";
    expect(relativeImports(text)).toEqual(['./a.ts', '../b.ts', '../../c.ts', './d.ts', './e.ts']);
  });

  for (const rule of RULES) {
    it(`keeps host/${rule.layer} free of imports from the layers above it`, () => {
      const upward = sources(join(HOST, rule.layer)).flatMap((file) =>
        relativeImports(readFileSync(file, 'utf8'))
          .filter((specifier) => rule.forbidden.includes(landsIn(file, specifier)))
          .map((specifier) => `${relative(HOST, file)} → ${specifier}`),
      );
      expect(upward).toEqual([]);
    });
  }
});
