// Lint keeps the runtimes apart (docs/decisions/0001): renderer code cannot reach Node or main, common code
// reaches nothing but itself, and only main/electron imports electron; main's Node code takes sharp from one
// module, which configures it.
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['fs', 'path', 'child_process', 'os', 'net', 'http', 'worker_threads', 'crypto', 'url']
  .flatMap((m) => [m, `node:${m}`, `${m}/*`, `node:${m}/*`]);

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'native/**', 'training/**', 'test-results/**', 'assets/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { patterns: [{ group: ['electron'], message: 'Only main/electron may import electron.' }] }],
    },
  },
  {
    files: ['main/electron/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['main/node/**/*.ts'],
    ignores: ['main/node/inputs/image-codec.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: 'sharp', message: 'Import sharp from main/node/inputs/image-codec.ts, which turns its cache off.' }],
        patterns: [{ group: ['electron'], message: 'Only main/electron may import electron.' }],
      }],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: nodeBuiltins.map((name) => ({ name, message: 'The renderer runs in a browser: no Node built-ins.' })),
        patterns: [
          { group: ['**/main/**', 'electron'], message: 'The renderer talks to main only through the transport API.' },
        ],
      }],
    },
  },
  {
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: nodeBuiltins.map((name) => ({ name, message: 'common/ is pure: no Node built-ins.' })),
        patterns: [{ group: ['**/main/**', '**/renderer/**', 'electron', 'react'], message: 'common/ imports only common/.' }],
      }],
    },
  },
);
