/** The part of electron-updater's AppUpdater the shell uses. */
export interface Updater {
  checkForUpdatesAndNotify(): Promise<unknown>
  logger: unknown
}

export interface UpdateContext {
  isPackaged: boolean
  env: NodeJS.ProcessEnv
  log(message: string): void
  /** Loads electron-updater; only called for a packaged app, so development never touches it. */
  load(): Promise<Updater>
}

/**
 * Checks the publish feed (electron-builder writes app-update.yml from the `publish` setting) once at
 * startup, downloads in the background and lets the OS notify when an update is ready to install on quit.
 * A development run has no feed; QUIRE_NO_UPDATE=1 turns checking off (managed machines, tests).
 * Failing to check is never fatal: the app works offline.
 */
export async function checkForUpdates(context: UpdateContext): Promise<'checked' | 'skipped' | 'failed'> {
  if (!context.isPackaged || context.env.QUIRE_NO_UPDATE === '1') return 'skipped'
  try {
    const updater = await context.load()
    updater.logger = { info: context.log, warn: context.log, error: context.log, debug: () => {} }
    await updater.checkForUpdatesAndNotify()
    return 'checked'
  } catch (error) {
    context.log(`update check failed: ${error instanceof Error ? error.message : String(error)}`)
    return 'failed'
  }
}
