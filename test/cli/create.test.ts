/** `addon-kit create integrator|addon`: what a new project gets, and what is refused. */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';

let work: string;
const manifest = async (path: string) =>
  JSON.parse(await readFile(path, 'utf8')) as Record<string, Record<string, string>>;
const template = await manifest(new URL('../../integrator-template/package.json', import.meta.url).pathname);
const sdk = await manifest(new URL('../../addon-sdk/package.json', import.meta.url).pathname);

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'addon-kit-create-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('addon-kit create integrator', () => {
  it("copies the template's sources, migrations and tests with a package.json of its real ranges, and prints the next steps", async () => {
    const dir = join(work, 'my-integrator');
    const res = await runCli(['create', 'integrator', dir]);
    expect(res.code).toBe(0);
    expect(res.stderr.split('\n')[0]).toBe(`addon-kit create integrator: writing ${dir}`);
    expect(res.stdout.split('\n')).toEqual([
      `created an integrator in ${dir}; next:`,
      `  cd ${dir}`,
      '  npm install',
      '  npm test',
      '  npm start            # on http://localhost:4200, for the development add-ons of http://localhost:4000',
      'then, in an add-on project: npm run dev -- --integrator http://localhost:4200',
      '',
    ]);
    const files = await readdir(dir, { recursive: true });
    expect(files).toEqual(
      expect.arrayContaining([
        'server.ts',
        'main.ts',
        'store/sql.ts',
        'migrations/001_integrator.sql',
        'test/token.test.ts',
        'vitest.config.ts',
        'tsconfig.json',
        'README.md',
        '.gitignore',
      ]),
    );
    expect(files.filter((f) => /^(node_modules|dist|vendor)(\/|$)|tsconfig\.build\.json/.test(f))).toEqual([]);
    const pkg = await manifest(join(dir, 'package.json'));
    expect(pkg.name).toBe('my-integrator');
    expect(pkg.scripts).toEqual({
      start: 'tsx main.ts',
      test: 'tsc -p tsconfig.json && vitest run',
      typecheck: 'tsc -p tsconfig.json',
    });
    expect(pkg.dependencies).toEqual(template.dependencies);
    expect(pkg.devDependencies).toEqual(template.devDependencies);
    expect(
      Object.keys({ ...pkg.dependencies, ...pkg.devDependencies }).filter((n) => n.startsWith('@addon-kit/')),
    ).toEqual([]);
  });
});

describe('addon-kit create addon', () => {
  it('writes the sample, its test, the config and scripts over this CLI, with published ranges [--from-registry]', async () => {
    const dir = join(work, 'registry-addon');
    const res = await runCli(['create', 'addon', dir, '--from-registry']);
    expect(res.code).toBe(0);
    expect((await readdir(dir, { recursive: true })).sort()).toEqual([
      '.gitignore',
      'README.md',
      'addon.config.json',
      'package.json',
      'src',
      'src/index.tsx',
      'test',
      'test/addon.test.ts',
      'tsconfig.json',
      'vitest.config.ts',
    ]);
    const pkg = await manifest(join(dir, 'package.json'));
    expect(pkg.scripts).toEqual({
      build: 'addon-kit addon build',
      dev: 'addon-kit addon dev',
      push: 'addon-kit addon push --env development',
      test: 'tsc -p tsconfig.json && vitest run',
    });
    expect(pkg.devDependencies).toEqual({
      '@addon-kit/sdk': '^0.1.0',
      '@addon-kit/host': '^0.1.0',
      '@types/node': template.devDependencies!['@types/node'],
      'playwright-core': template.devDependencies!['playwright-core'],
      preact: sdk.dependencies!.preact,
      typescript: template.devDependencies!.typescript,
      vite: sdk.dependencies!.vite,
      vitest: template.devDependencies!.vitest,
    });
    const source = await readFile(join(dir, 'src/index.tsx'), 'utf8');
    expect(source).toMatch(/from '@addon-kit\/sdk';/);
    expect(source).toContain('authenticatedFetch(');
    expect(source).toContain('authenticatedIntegratorFetch(');
    expect(await readFile(join(dir, 'test/addon.test.ts'), 'utf8')).toContain("from '@addon-kit/sdk/testing'");
    expect(await readFile(join(dir, 'addon.config.json'), 'utf8')).toContain('"${ADDON_OAUTH_APPLICATION_ID}"');
    // Completed by the host's own integrator for any development add-on; what dev remembers stays out of git.
    expect(await readFile(join(dir, 'addon.config.json'), 'utf8')).toContain(
      '"redirect_url": "http://localhost:4100/addon/complete/${ADDON_OAUTH_APPLICATION_ID}"',
    );
    expect((await readFile(join(dir, '.gitignore'), 'utf8')).split('\n')).toContain('.addon-kit.json');
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toContain('`${ADDON_OAUTH_APPLICATION_ID}`');
  });

  it('depends on tarballs copied into vendor/ [--packages]', async () => {
    const packed = join(work, 'packed');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(packed, { recursive: true });
    for (const name of [
      'addon-kit-sdk-0.1.0.tgz',
      'addon-kit-integrator-template-0.1.0.tgz',
      'addon-kit-host-0.1.0.tgz',
    ])
      await writeFile(join(packed, name), 'not really a tarball');
    const dir = join(work, 'vendored-addon');
    const res = await runCli(['create', 'addon', dir, '--packages', packed]);
    expect(res.code).toBe(0);
    expect((await readdir(join(dir, 'vendor'))).sort()).toEqual([
      'addon-kit-host-0.1.0.tgz',
      'addon-kit-integrator-template-0.1.0.tgz',
      'addon-kit-sdk-0.1.0.tgz',
    ]);
    const deps = (await manifest(join(dir, 'package.json'))).devDependencies!;
    expect([deps['@addon-kit/sdk'], deps['@addon-kit/integrator-template'], deps['@addon-kit/host']]).toEqual([
      'file:vendor/addon-kit-sdk-0.1.0.tgz',
      'file:vendor/addon-kit-integrator-template-0.1.0.tgz',
      'file:vendor/addon-kit-host-0.1.0.tgz',
    ]);
  });

  it.each([
    [['create', 'addon'], /^addon-kit create: <dir> is required: /],
    [['create', 'plugin', 'x'], /^addon-kit create: create what\? addon-kit create integrator\|addon <dir>/],
    [
      ['create', 'addon', 'x', '--from-registry', '--packages', 'y'],
      /^addon-kit create: --from-registry and --packages exclude each other$/,
    ],
  ])('exits 2 with one line for %j', async (args, message) => {
    const res = await runCli(args);
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(message);
  });

  it('refuses a folder that is not empty and leaves it alone [exit 2]', async () => {
    const dir = join(work, 'busy');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir);
    await writeFile(join(dir, 'keep.txt'), 'mine');
    const res = await runCli(['create', 'addon', dir]);
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toBe(`addon-kit create: ${dir} is not empty; choose a new or empty folder`);
    expect(await readdir(dir)).toEqual(['keep.txt']);
  });
});
