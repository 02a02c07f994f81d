import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

const ELECTRON = { name: 'electron', message: 'Only src/main/shell may import electron.' }
const ABOVE_ENGINE = {
  group: ['**/app/**', '**/cli/**', '**/shell/**', '**/headless/**', '**/service/**'],
  message: 'The sync engine is below every front end (app, cli, shell, headless) and apart from the local service.',
}
// The front ends see the engine through its public entry points only: engine/index.ts, and
// engine/import/index.ts (the Git Sync import, which only quire import loads). What lies deeper is the
// engine's own business and may move (issue 30).
const ENGINE_INSIDE = {
  group: ['**/engine/*/**'],
  message: 'Front ends import the engine through its public entry points: ../engine (engine/index.ts) or ../engine/import.',
}
const above = (folders, why) => ({ group: folders.map((f) => `../${f}/*`), message: `A lower layer of the engine: ${why}.` })
const layer = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { paths: [ELECTRON], patterns }] } })

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-output/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    // The engine and the service run on plain Node: only the Electron shell may import electron.
    files: ['src/main/**/*.ts'],
    ignores: ['src/main/shell/**'],
    rules: { 'no-restricted-imports': ['error', { paths: [ELECTRON] }] },
  },
  // Imports point down the layers (as Signal lints which runtime each file may use). A later block
  // replaces the rule for its files, so each repeats what the layers above it forbid.
  layer(['src/main/engine/**/*.ts'], [ABOVE_ENGINE]),
  layer(['src/main/engine/outbox/**/*.ts'], [ABOVE_ENGINE, above(['push', 'sync', 'session', 'watch'], 'the outbox sends what sync up plans')]),
  layer(['src/main/engine/{cache,workspace,gateway,account}/**/*.ts'], [ABOVE_ENGINE, above(['push', 'sync', 'outbox', 'session', 'watch', 'comments', 'links'], 'cache, workspace and gateway are the bottom layer')]),
  layer(['src/main/{app,headless}/**/*.ts'], [ENGINE_INSIDE]),
  // The CLI is a front end beside the app, not above it: what both need lives in the engine.
  layer(['src/main/cli/**/*.ts'], [ENGINE_INSIDE, { group: ['../app/*', '../headless/*', '../shell/*'], message: 'The CLI is a front end beside the app: what both need belongs in the engine.' }]),
  // Exception: quire's entry point loads three small engine modules by themselves, so that `quire --help`
  // and every command's start pay for the cache-health listener only, not for the engine's index.
  layer(['src/main/cli/main.ts'], []),
  // The Electron shell may import electron, and nothing deeper in the engine than the other front ends.
  { files: ['src/main/shell/**/*.ts'], rules: { 'no-restricted-imports': ['error', { patterns: [ENGINE_INSIDE] }] } },
  layer(['src/main/content/**/*.ts'], [{ group: ['**/engine/**', '**/service/**', '**/app/**', '**/cli/**', '**/shell/**', '**/headless/**', 'node:fs', 'node:fs/*', 'fs', 'node:net', 'node:http', 'node:child_process'], message: 'The content model is pure: no I/O, shared by the engine and the service.' }]),
  layer(['src/renderer/**/*.{ts,tsx}', 'src/shared/**/*.ts'], [{ group: ['node:*', 'fs', 'path', 'os', 'child_process', 'electron', '**/main/**', 'better-sqlite3'], message: 'The renderer and the shared contract run in a browser: no Node modules, nothing of src/main.' }]),
  {
    // Tests read loosely typed JSON responses; their assertions do the checking.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
  },
)
