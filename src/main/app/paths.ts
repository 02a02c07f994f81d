import path from 'node:path'
import envPaths from 'env-paths'
import { quirePaths } from '../engine'

/**
 * Where the app keeps its data. Without a data folder it is the CLI's (`quirePaths`: the per-user data
 * folder, or QUIRE_HOME), so `quire sync`, `quire serve` and the desktop app share one cache and one
 * set of tokens; with one (`quire serve --data DIR`, tests) everything lives inside it.
 */
export interface AppPaths {
  /** The client cache (SQLite), settings included. */
  cacheFile: string
  /** Folder of the file token store (where no OS keychain is used). */
  tokenFolder: string
  /** The embedded demo service's data ("Use the demo service"). */
  serviceDir: string
  /** Activity log (JSON lines). */
  logFile: string
  /** The workspace folder used until the user picks one. */
  defaultWorkspace: string
}

export function appPaths(dataDir?: string, env: NodeJS.ProcessEnv = process.env): AppPaths {
  if (dataDir) {
    return {
      cacheFile: path.join(dataDir, 'cache.db'),
      tokenFolder: path.join(dataDir, 'credentials'),
      serviceDir: path.join(dataDir, 'service'),
      logFile: path.join(dataDir, 'logs', 'activity.log'),
      defaultWorkspace: path.join(dataDir, 'workspace'),
    }
  }
  const shared = quirePaths(env)
  const data = path.dirname(shared.cacheFile)
  return {
    ...shared,
    serviceDir: path.join(data, 'service'),
    logFile: env.QUIRE_HOME ? path.join(data, 'logs', 'activity.log') : path.join(envPaths('quire', { suffix: '' }).log, 'activity.log'),
  }
}
