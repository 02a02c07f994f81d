import type { HandlerResult } from '../http/context'
import { deleted } from './serializers/deleted'

/**
 * For deletes whose published spec names both outcomes: 204 "did not exist", 205 "has been deleted".
 * Deleting twice is therefore not an error.
 */
export function deleteIfFound<T>(found: T | undefined, remove: (found: T) => void): HandlerResult {
  if (found) remove(found)
  return deleted(!!found)
}
