import { MAX_CHANGES_PER_BATCH } from '../../content'
import type { PlannedChange } from './push-types'

/**
 * Cuts a plan's changes into batches of at most 50, in plan order (parents before children, uploads
 * before the pages that link to them). A change that needs a ref stays with the change defining it
 * when that fits; otherwise the later batch gets the id once the earlier one is answered.
 */
export function batchChanges(changes: readonly PlannedChange[], size: number = MAX_CHANGES_PER_BATCH): PlannedChange[][] {
  const batches: PlannedChange[][] = []
  let current: PlannedChange[] = []
  let defined = new Set<string>()
  for (const change of changes) {
    const needsCurrent = change.uses.some((ref) => defined.has(ref))
    if (current.length >= size || (current.length >= size - 1 && !needsCurrent && wantsFollowers(change, changes))) {
      batches.push(current)
      current = []
      defined = new Set()
    }
    current.push(change)
    for (const ref of change.defines?.split(' ') ?? []) if (ref) defined.add(ref)
  }
  if (current.length > 0) batches.push(current)
  return batches
}

/** Whether later changes use a ref this one defines (better to open a new batch with it). */
function wantsFollowers(change: PlannedChange, all: readonly PlannedChange[]): boolean {
  const refs = change.defines?.split(' ').filter(Boolean) ?? []
  return refs.length > 0 && all.some((other) => other.uses.some((ref) => refs.includes(ref)))
}
