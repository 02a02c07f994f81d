/**
 * What the service benches share: the latency probe beside a long request, percentiles, and the large
 * page they edit.
 */

/**
 * Latencies of GETs of `url`, one after another, until `until` settles (or `count` of them when there is
 * none). A request that fails counts as a wait (a server that stalls past its keep-alive timeout resets
 * the next request on that socket); its reason goes to `failures` when given.
 */
export async function probeLatencies(url: string, headers: Record<string, string>, until: Promise<unknown> | undefined, count = 0, failures?: string[]): Promise<number[]> {
  let settled = false
  void until?.then(
    () => (settled = true),
    () => (settled = true),
  )
  const waits: number[] = []
  while (until ? !settled : waits.length < count) {
    const sent = performance.now()
    try {
      await (await fetch(url, { headers })).arrayBuffer()
    } catch (error) {
      failures?.push(`${error instanceof Error ? error.message : String(error)} (${error instanceof Error && error.cause instanceof Error ? error.cause.message : ''})`)
    }
    waits.push(performance.now() - sent)
  }
  return waits
}

/** The value below which `p` percent of `values` fall (nearest rank; 100: the largest). */
export const percentile = (values: number[], p: number): number => {
  const sorted = values.slice().sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

/** About `bytes` of markdown: paragraphs, tables and code, a link in most blocks (to a new page's anchors with `batchLinks`). */
export function bigMarkdown(bytes: number, batchLinks: boolean): string {
  const parts: string[] = ['# Big page\n\n']
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const target = batchLinks ? `./new-page.md#part-${i}` : `page-${i % 50}.md`
    const block =
      i % 10 === 9
        ? '```js\nconst x = [1, 2, 3]\nfunction double(a) { return a * 2 }\n```\n\n'
        : i % 5 === 4
          ? `| Key | Value |\n| --- | --- |\n| ${i} | [cell](${target}) |\n\n`
          : `Paragraph ${i} with **bold**, _emphasis_, a [link](${target}), https://example.com/${i} and \`code\`. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\n\n`
    parts.push(block)
    size += block.length
  }
  return parts.join('')
}
