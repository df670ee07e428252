// typescript-eslint's recommended type-checked rules, plus no-floating-promises (a dropped promise
// is a silently lost error). Prettier owns formatting (eslint-config-prettier turns off the rules
// that would fight it). A disable comment says why.
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'test-artifacts/**', '.data/**', '**/generated/**', 'coverage/**'],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // Tests read untyped JSON answers (supertest's and fetch's bodies are `any`) and assert their
    // shape with expect, which is the check the no-unsafe-* rules would ask for; their fakes
    // implement async interfaces without awaiting (an `async` fake turns a throw into a rejection,
    // as the real one does); fakes of upstream APIs stringify the untyped JSON they are sent.
    files: ['**/*.test.ts', '**/test/**', 'test-e2e/**', 'bench/**', '**/testing/src/**', 'scripts/containers/**'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  // Node scripts and configs (the dashboard's browser code is TypeScript, linted as the rest is).
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        module: 'writable',
        require: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortSignal: 'readonly',
      },
    },
  },
  prettier,
);
