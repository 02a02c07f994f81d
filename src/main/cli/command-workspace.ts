import { LeaseHeldError, NotSignedInError, openWorkspace, quirePaths, type OpenWorkspace, type OpenWorkspaceOptions } from '../engine/sync-entry'
import type { CliIo } from './io'

/**
 * The workspace a command runs on, opened by the engine's openWorkspace, or the exit code when it cannot
 * be: `held` finishes the line said when another live process holds the workspace (exit 3), `signedOut`
 * the line said when no account is signed in (exit 1; without it the error goes up to quire's main).
 */
export async function openCommandWorkspace(io: CliIo, command: string, options: OpenWorkspaceOptions & { held?: string; signedOut?: string }): Promise<OpenWorkspace | number> {
  const { held, signedOut, ...open } = options
  try {
    return await openWorkspace(quirePaths(), open)
  } catch (error) {
    if (error instanceof LeaseHeldError && held !== undefined) {
      io.err(`quire ${command}: ${error.message}; ${held}`)
      return 3
    }
    if (error instanceof NotSignedInError && signedOut !== undefined) {
      io.err(`quire ${command}: ${signedOut}`)
      return 1
    }
    throw error
  }
}

