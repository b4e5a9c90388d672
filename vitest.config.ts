import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files whose subject is not the host's database (packing and installing the packages, scaffolds, the SDK's
 * build, the doctor against the template integrator, source-layout checks): on a PostgreSQL run (DATABASE_URL set)
 * they are left out, since the PGlite run of the same commit already ran them. ADDON_KIT_TEST_ALL=1 runs them anyway.
 */
const DATABASE_INDEPENDENT = [
  'test/e2e/outside-in.browser.test.ts',
  'test/e2e/first-hour.browser.test.ts',
  'test/workspaces.test.ts',
  'test/cli/create.test.ts',
  'test/cli/start-console.test.ts',
  'test/cli/doctor-checks.test.ts',
  'test/cli/doctor-faults.test.ts',
  'test/addon-sdk/build/**',
  'test/addon-sdk/vite/**',
  'test/bench/**',
  'test/host/layers.test.ts',
  'test/examples.test.ts',
  'test/markdown-links.test.ts',
  'test/readme.test.ts',
  'test/host/db/table-owners.test.ts',
  'integrator-template/test/data-dir-creation.test.ts',
];
const runOnce = process.env.DATABASE_URL !== undefined && process.env.ADDON_KIT_TEST_ALL !== '1';

export default defineConfig({
  // The workspaces resolve to their TypeScript sources (the `source` export condition), as in tsconfig.json.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  environments: { __vitest__: { resolve: { conditions: ['source'] } } },
  test: {
    include: ['test/**/*.test.ts', 'integrator-template/test/**/*.test.ts'],
    exclude: runOnce ? [...configDefaults.exclude, ...DATABASE_INDEPENDENT] : configDefaults.exclude,
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
