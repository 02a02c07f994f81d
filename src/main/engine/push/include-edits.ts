import { INCLUDES_PREFIX } from '../workspace/content-names'
import type { PlanState } from './plan-state'

/**
 * `.gitbook/includes/` is read-only for a push: the content API has no change that writes reusable
 * content (the spec's content changes are pages and files only), so an include the writer edited or
 * added stays in the folder, never sent and never overwritten by sync down. Each is reported, so the
 * writer knows the edit has not reached the space.
 */
export function reportIncludeEdits(s: PlanState): void {
  const journaled = new Map(s.input.journal.filter((j) => j.path.startsWith(INCLUDES_PREFIX)).map((j) => [j.path, j]))
  const includes = [...s.input.local].filter(([path]) => path.startsWith(INCLUDES_PREFIX)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  for (const [path, file] of includes) {
    const base = journaled.get(path)
    if (base && (file.hash === base.baseHash || file.hash === base.oid)) continue
    const what = base ? 'changed locally' : 'is not in the space'
    s.report('include-kept', path, `${path} ${what}: the content API cannot write reusable content, so it stays in this folder and is not sent`)
  }
}
