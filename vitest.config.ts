import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspaces resolve to their TypeScript sources (the `source` export condition), as in tsconfig.json.
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  environments: { __vitest__: { resolve: { conditions: ['source'] } } },
  test: {
    include: ['test/**/*.test.ts', 'integrator-template/test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
