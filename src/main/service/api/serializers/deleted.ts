import type { HandlerResult } from '../../http/context'

/**
 * The published spec names two outcomes for these deletes: 205 "has been deleted" and 204 "did not
 * exist". Neither has a body.
 */
export const deleted = (existed: boolean): HandlerResult => ({ status: existed ? 205 : 204 })
