// ESLint (flat config) with typescript-eslint, run by `npm test` before the unit layer (and so
// by CI). Lines are kept under 180 characters; a long string, template or regular expression
// may run past it rather than be cut in the middle of a message or a pattern.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/vscode-server/**', 'test/fixtures/**', 'bench/**', 'scripts/**', 'media/**', 'test-results/**', '*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      'max-len': ['error', { code: 180, ignoreUrls: true, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true }],
      // `_name` marks a value left out on purpose (a destructured field dropped from a copy).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Control characters are what the terminal, workbench and JSON neutralisers match, and
      // what the hostile-input tests feed in: a pattern for them is the point, not a slip.
      'no-control-regex': 'off',
    },
  },
);
