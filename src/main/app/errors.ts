import { GitBookAPIError } from '@gitbook/api'
import { ServiceUnreachableError } from '../engine'

export type AppErrorKind = 'signed-out' | 'auth' | 'forbidden' | 'not-found' | 'conflict' | 'offline' | 'invalid'

/**
 * An error the user should read: the bridge carries `kind` and `message` to the renderer as they are.
 * Anything else that escapes the backend is a bug and is reported as such.
 */
export class AppError extends Error {
  constructor(
    readonly kind: AppErrorKind,
    message: string,
  ) {
    super(message)
    this.name = 'AppError'
  }
}

/** Turns what the gateway or the API client threw into an AppError with a message a person can act on. */
export function fromApiError(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error
  // Node's fetch says only "fetch failed" (the reason is in its cause): the user is told the service cannot be reached, which is what it means.
  if (error instanceof ServiceUnreachableError) return new AppError('offline', `${what}: ${error.message.replace(/: fetch failed$/, '')}`)
  if (error instanceof GitBookAPIError) {
    const detail = error.errorMessage || error.message
    switch (error.code) {
      case 401:
        return new AppError('auth', `${what}: the service refused the token (${detail})`)
      case 403:
        return new AppError('forbidden', `${what}: not allowed (${detail})`)
      case 404:
        return new AppError('not-found', `${what}: not found (${detail})`)
      case 409:
      case 412:
        return new AppError('conflict', `${what}: ${detail}`)
      default:
        return new AppError(error.code >= 500 ? 'offline' : 'invalid', `${what}: ${detail} (HTTP ${error.code})`)
    }
  }
  return new AppError('invalid', `${what}: ${error instanceof Error ? error.message : String(error)}`)
}
