import fs from 'node:fs/promises'
import path from 'node:path'

export interface NativeBindingContext {
  isPackaged: boolean
  /** The project root in development (where package.json and node_modules are). */
  appPath: string
  /** process.versions.electron */
  electronVersion: string
}

export type NativeBinding = { file?: string; problem?: string }

/**
 * better-sqlite3's addon for this Electron. A packaged app's node_modules were rebuilt for Electron by
 * electron-builder, so the default load is right. In development node_modules holds Node's build (tests
 * and the CLI need it); `npm run rebuild:electron` (scripts/rebuild-electron-sqlite.mjs) puts an Electron
 * build beside it, stamped with the Electron version it was made for, and this finds it.
 */
export async function electronSqliteBinding(context: NativeBindingContext): Promise<NativeBinding> {
  if (context.isPackaged) return {}
  const dir = path.join(context.appPath, 'node_modules', '.quire-electron')
  const file = path.join(dir, 'better_sqlite3.node')
  let stamp: { electron?: unknown }
  try {
    stamp = JSON.parse(await fs.readFile(path.join(dir, 'stamp.json'), 'utf8')) as { electron?: unknown }
    await fs.access(file)
  } catch {
    return { problem: 'better-sqlite3 has no build for Electron yet: run `npm run rebuild:electron` (npm start does it for you)' }
  }
  if (stamp.electron !== context.electronVersion) {
    return { problem: `better-sqlite3 was built for Electron ${String(stamp.electron)}, this is ${context.electronVersion}: run \`npm run rebuild:electron\`` }
  }
  return { file }
}
