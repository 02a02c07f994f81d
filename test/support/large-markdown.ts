/**
 * About `bytes` of markdown (at least that many characters, a whole block more at most): `head`, then
 * `block(0)`, `block(1)`, ... until the size is reached. The large pages of the stall, slicing and step
 * tests, each with its own blocks.
 */
export function markdownOfSize(bytes: number, block: (i: number) => string, head = '# Big page\n\n'): string {
  const parts: string[] = [head]
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const next = block(i)
    parts.push(next)
    size += next.length
  }
  return parts.join('')
}
