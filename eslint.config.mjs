// ESLint (flat config) with typescript-eslint, run by `npm test` before the unit layer (and so
// by CI), with type information so a promise nobody awaits is an error. Lines are kept under
// 160 characters. max-len lets a string, template or pattern run past; test/unit/lineLength.test.ts
// does not: past 160 only with a URL or an `eslint-disable-next-line max-len -- reason` marker.
// The benchmark and build scripts (bench/, scripts/, the root .mjs files) are plain Node ES modules:
// linted with the recommended rules, no type information.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What Node gives an ES module without an import (the scripts use these). */
const NODE_GLOBALS = Object.fromEntries([
  'process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'TextDecoder', 'TextEncoder', 'AbortController', 'AbortSignal',
  'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate', 'queueMicrotask',
  'performance', 'structuredClone', 'fetch', 'Headers', 'Request', 'Response', 'globalThis',
].map((name) => [name, 'readonly']));

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/vscode-server/**', 'test/fixtures/**', 'bench/data/**', 'media/**', 'test-results/**'] },
  js.configs.recommended,
  {
    files: ['**/*.mjs'],
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: NODE_GLOBALS },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-control-regex': 'off',
    },
  },
  ...tseslint.configs.recommended.map((c) => ({ ...c, files: ['**/*.ts'] })),
  {
    files: ['**/*.ts'],
    // Type information (the project's tsconfig.json through the project service), for the rules
    // that need it: a promise nobody awaits loses its error and its ordering silently.
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }],
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      // 160: a line a reviewer reads without scrolling. Past it only a string, a template, a regular
      // expression or a URL (a message or pattern is not cut in the middle), or a line marked with its reason.
      'max-len': ['error', { code: 160, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      // `_name` marks a value left out on purpose (a destructured field dropped from a copy).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Control characters are what the terminal, workbench and JSON neutralisers match, and
      // what the hostile-input tests feed in: a pattern for them is the point, not a slip.
      'no-control-regex': 'off',
    },
  },
);
