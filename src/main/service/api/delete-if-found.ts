import { noContent, type HandlerResult } from '../http/context'

/**
 * For deletes whose published spec names both outcomes: 204 "did not exist", 205 "has been deleted".
 * Deleting twice is therefore not an error.
 */
export function deleteIfFound<T>(found: T | undefined, remove: (found: T) => void): HandlerResult {
  if (!found) return noContent()
  remove(found)
  return { status: 205 }
}
