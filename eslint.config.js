// Lint with type information (typescript-eslint, one program from the root tsconfig.json). `npm run lint`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'coverage/**',
      '.addon-kit/**',
      'host/cli/create/addon-template/**',
      '**/*.d.ts',
      '**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Passing on a value of unknown type (an abort signal's reason, as fetch does) is allowed, as only-throw-error allows it.
      // Interfaces we implement (oidc-provider's adapter and policy hooks, express handlers) want async functions
      // that need not await; the promise rules that catch real faults (no-floating-promises, no-misused-promises,
      // await-thenable) stay on.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  {
    // Tests read HTTP answers (supertest's `body` is `any`) and poke at internals: the no-unsafe-* family would
    // only demand casts that prove nothing. Everything about promises, `this` and dead code still applies.
    files: ['test/**', 'integrator-template/test/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      // Tests wrap methods of the parts they observe (db.query, a resolver) and call the original with .call().
      '@typescript-eslint/unbound-method': 'off',
    },
  },
);
