#!/usr/bin/env -S node --max-semi-space-size=4 --heap-growing-percent=100
// The flags on the line above are src/main/node-flags.ts's SYNC_PROCESS_NODE_FLAGS (why: there).
// The CLI runs built JavaScript (scripts/build-cli.mjs: an esbuild bundle of src/main/cli/main.ts in
// node_modules/.cache/quire-cli/, made by `npm ci`'s prepare or on the first run), not TypeScript compiled
// by tsx on every start. It never runs stale code: each start compares the build's stamp with the mtime and
// size of every source file it was built from (~1-2 ms) and rebuilds first when any differs, so an edit to
// src/ counts at the next run. When no build can be made (esbuild missing, a read-only folder) or
// QUIRE_CLI_TSX=1 is set, it runs the sources through tsx as before.
import module from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildCli, CLI_BUILD_DIR, freshCliEntry } from '../scripts/build-cli.mjs'

/** What went wrong with a build, in one line (esbuild's errors carry the file and line). */
function buildProblem(error) {
  const first = error?.errors?.[0]
  if (first?.location) return `${first.location.file}:${first.location.line}: ${first.text}`
  return error instanceof Error ? error.message.split('\n')[0] : String(error)
}

async function loadMain() {
  if (process.env.QUIRE_CLI_TSX !== '1') {
    let entry
    try {
      entry = freshCliEntry() ?? (await buildCli())
    } catch (error) {
      process.stderr.write(`quire: could not build the CLI (${buildProblem(error)}); running the sources through tsx\n`)
    }
    if (entry) {
      // Compiling the bundle's modules is a third of a start. Node 22.1+ keeps V8's compiled code between
      // starts (keyed by each file's content); Node 20 has no such API and compiles every time.
      module.enableCompileCache?.(path.join(CLI_BUILD_DIR, '..', 'quire-cli-v8'))
      return (await import(pathToFileURL(entry).href)).main
    }
  }
  const { register } = await import('tsx/esm/api')
  register()
  return (await import('../src/main/cli/main.ts')).main
}

const main = await loadMain()
process.exitCode = await main(process.argv.slice(2))
