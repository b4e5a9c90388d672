import { defineConfig } from 'vitest/config';

// The template's own tests: PGlite in memory, or a schema of its own on DATABASE_URL's PostgreSQL.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
