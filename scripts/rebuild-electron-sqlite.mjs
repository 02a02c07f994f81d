#!/usr/bin/env node
/**
 * `npm run rebuild:electron`: builds better-sqlite3's addon for the installed Electron's ABI into
 * node_modules/.quire-electron/better_sqlite3.node, next to (never over) the Node build that tests and
 * the CLI load. The desktop app, when not packaged, passes that file to better-sqlite3 as `nativeBinding`
 * (src/main/shell/native-binding.ts). Packaged apps do not need it: electron-builder rebuilds the
 * packaged copy of node_modules for Electron (electron-builder.yml: npmRebuild, buildDependenciesFromSource).
 *
 * A copy of the package's sources is rebuilt with @electron/rebuild in a scratch project, so
 * node_modules/better-sqlite3/build stays Node's. Does nothing when the stamp says the build matches the
 * installed Electron and better-sqlite3 (`--force` rebuilds anyway). Needs a C++ toolchain and Electron's
 * headers (downloaded by node-gyp from electronjs.org).
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const modules = path.join(root, 'node_modules')
const outDir = path.join(modules, '.quire-electron')
const stampFile = path.join(outDir, 'stamp.json')
const addon = path.join(outDir, 'better_sqlite3.node')

const versionOf = (name) => JSON.parse(fs.readFileSync(path.join(modules, name, 'package.json'), 'utf8')).version

async function main() {
  const electron = versionOf('electron')
  const sqlite = versionOf('better-sqlite3')
  const wanted = { electron, betterSqlite3: sqlite, platform: process.platform, arch: process.arch }
  const stamp = fs.existsSync(stampFile) ? JSON.parse(fs.readFileSync(stampFile, 'utf8')) : undefined
  if (!process.argv.includes('--force') && fs.existsSync(addon) && JSON.stringify(stamp) === JSON.stringify(wanted)) {
    console.log(`better-sqlite3 ${sqlite} for Electron ${electron}: up to date (${path.relative(root, addon)})`)
    return
  }

  let rebuild
  try {
    ;({ rebuild } = await import('@electron/rebuild'))
  } catch {
    throw new Error('@electron/rebuild is missing (it comes with electron-builder): run npm install')
  }

  const scratch = path.join(outDir, 'scratch')
  fs.rmSync(scratch, { recursive: true, force: true })
  const copy = path.join(scratch, 'node_modules', 'better-sqlite3')
  // Sources only: the existing build/ holds Node's addon and would be taken for up to date.
  fs.cpSync(path.join(modules, 'better-sqlite3'), copy, { recursive: true, filter: (src) => path.basename(src) !== 'build' || path.dirname(src) !== path.join(modules, 'better-sqlite3') })
  fs.writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'quire-electron-native', version: '0.0.0', private: true, dependencies: { 'better-sqlite3': sqlite } }))

  console.log(`building better-sqlite3 ${sqlite} for Electron ${electron} (${process.platform}-${process.arch})…`)
  await rebuild({ buildPath: scratch, electronVersion: electron, onlyModules: ['better-sqlite3'], force: true, buildFromSource: true, mode: 'sequential' })

  const built = path.join(copy, 'build', 'Release', 'better_sqlite3.node')
  if (!fs.existsSync(built)) throw new Error(`the rebuild finished without ${path.relative(root, built)}`)
  fs.copyFileSync(built, addon)
  fs.writeFileSync(stampFile, `${JSON.stringify(wanted)}\n`)
  fs.rmSync(scratch, { recursive: true, force: true })
  console.log(`wrote ${path.relative(root, addon)}`)
}

main().catch((error) => {
  console.error(`rebuild:electron: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
})
