import type { DesktopActions } from '../../app/desktop-actions'
import type { TokenVault } from '../../app/token-vault'

/**
 * The conversation between the main process and the backend's utility process, in names both import:
 * - main -> backend: `control.start(options)` once, then `api.<channel>(...)` for every request channel;
 * - backend -> main: `vault.*` (tokens live behind safeStorage, only in the main process) and `desktop.*`
 *   (shell.openExternal / openPath, only in the main process);
 * - backend -> main notices: `event` carrying a QuireEvent.
 */
export const TARGETS = { control: 'control', api: 'api', vault: 'vault', desktop: 'desktop' } as const
export const EVENT_TOPIC = 'event'

export const VAULT_METHODS = ['get', 'set', 'delete'] as const satisfies readonly (keyof TokenVault)[]
export const DESKTOP_METHODS = ['openFile', 'openUrl', 'openFolder'] as const satisfies readonly (keyof DesktopActions)[]

export interface BackendStartOptions {
  /** Where the cache, the demo service and the activity log live; the backend's default (shared with the CLI) when absent. */
  dataDir?: string
  /** better-sqlite3 built for Electron's ABI, when it is not the one in node_modules (development). */
  nativeBinding?: string
  vaultKind: TokenVault['kind']
}

export interface BackendControl {
  start(options: BackendStartOptions): Promise<void>
  stop(): Promise<void>
}
