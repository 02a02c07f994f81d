/**
 * How deep a request's JSON may nest. Free-form document `data` is the only place the spec leaves
 * nesting open, and real documents stay within a few dozen levels; JSON.stringify, the spec validator
 * and the document walkers recurse, so a 10,000-deep body would overflow the stack on the way out.
 */
export const MAX_JSON_DEPTH = 256

/** True when `value` nests objects and arrays more than `limit` levels deep (walked without recursion). */
export function nestsDeeperThan(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }]
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!
    if (current === null || typeof current !== 'object') continue
    if (depth > limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1 })
    }
  }
  return false
}
