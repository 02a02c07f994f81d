/**
 * Block-level three-way merge of one large page (issue 15): a 5,000-line page (headings, paragraphs,
 * lists, tables, code fences, GitBook hints and tabs, front matter) that two writers edited in 50
 * disjoint blocks each (lines changed inside blocks, blocks deleted, paragraphs inserted), merged by
 * mergePageFiles, against a floor measured in the same run.
 *
 * - merge: mergePageFiles(base, main, branch), checked to give exactly the page with both writers'
 *   edits and no conflict.
 * - floor: the two line diffs any three-way merge of these texts needs at the least, base→main and
 *   base→branch, with the `diff` package's diffLines (what the client used before the block merge).
 * - Both run in this process, warmed up first; rounds run the two back to back, alternating which goes
 *   first; the figures are the medians, the ratio the median of the rounds' ratios.
 *
 *   npm run bench:merge      BENCH_ROUNDS=31 npm run bench:merge
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/merge.ts    (where the time goes)
 */
import os from 'node:os'
import { diffLines } from 'diff'
import { mergePageFiles } from '../src/main/content/merge/merge-page'

const LINES = 5000
const EDITS_PER_SIDE = 50
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15)
const TARGET_MS = 50

/** mulberry32: the same page every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const random = seeded(15)
const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1))
const pick = <T>(items: readonly T[]): T => items[int(0, items.length - 1)]
const WORDS = ['sync', 'space', 'page', 'token', 'review', 'merge', 'branch', 'the', 'a', 'of', 'with', 'quota', 'limit', 'export', 'folder', 'writer', 'change', 'request', 'settings', 'member']
const sentence = (): string => Array.from({ length: int(6, 16) }, () => pick(WORDS)).join(' ') + '.'

/** One block of a documentation page (no blank line inside, except in GitBook blocks). */
function block(n: number): string {
  switch (n % 9) {
    case 0:
      return `## Section ${n}`
    case 1:
    case 5:
      return Array.from({ length: int(1, 4) }, sentence).join('\n')
    case 2:
      return Array.from({ length: int(2, 6) }, () => `* ${sentence()}`).join('\n')
    case 3:
      return `{% hint style="${pick(['info', 'warning', 'danger'])}" %}\n${sentence()}\n\n${sentence()}\n{% endhint %}`
    case 4:
      return ['```js', ...Array.from({ length: int(2, 6) }, (_, i) => `const value${i} = ${int(0, 999)}`), '```'].join('\n')
    case 6:
      return ['| Name | Value |', '| ---- | ----- |', ...Array.from({ length: int(2, 5) }, () => `| ${pick(WORDS)} | ${int(0, 999)} |`)].join('\n')
    case 7:
      return `{% tabs %}\n{% tab title="macOS" %}\n${sentence()}\n{% endtab %}\n\n{% tab title="Linux" %}\n${sentence()}\n{% endtab %}\n{% endtabs %}`
    default:
      return Array.from({ length: int(2, 4) }, (_, i) => `${i + 1}. ${sentence()}`).join('\n')
  }
}

type Edit = { kind: 'line'; text: string } | { kind: 'delete' } | { kind: 'insert'; text: string }

/** Changes one line of a block a writer can extend without changing its kind (not a fence, tag or table rule). */
function editLine(text: string, mark: string): string {
  const lines = text.split('\n')
  const editable = lines.map((line, i) => (/^(?:[#*|]|\d+\.|[a-z]|const)/.test(line) && !/^\| -/.test(line) ? i : -1)).filter((i) => i >= 0)
  const at = pick(editable)
  lines[at] = lines[at].replace(/ \|$/, ` ${mark} |`).replace(/([^|])$/, `$1 ${mark}`)
  return lines.join('\n')
}

function render(blocks: string[]): string {
  return `---\ndescription: A large page\nicon: book\n---\n\n# Large page\n\n${blocks.join('\n\n')}\n`
}

function makePages(): { base: string; main: string; branch: string; expected: string } {
  const blocks: string[] = []
  while (render(blocks).split('\n').length < LINES) blocks.push(block(blocks.length))
  // 100 blocks at least two apart (so no edit touches a block next to the other side's), alternating sides.
  const chosen = new Set<number>()
  while (chosen.size < EDITS_PER_SIDE * 2) {
    const at = int(1, blocks.length - 2)
    if (![...chosen].some((c) => Math.abs(c - at) < 3)) chosen.add(at)
  }
  const sides = [new Map<number, Edit>(), new Map<number, Edit>()]
  ;[...chosen].sort((a, b) => a - b).forEach((at, i) => {
    const mark = `${i % 2 === 0 ? 'mainedit' : 'branchedit'}${i}`
    const roll = random()
    const edit: Edit = roll < 0.6 ? { kind: 'line', text: editLine(blocks[at], mark) } : roll < 0.8 ? { kind: 'delete' } : { kind: 'insert', text: `${mark} inserted paragraph.` }
    sides[i % 2].set(at, edit)
  })
  const apply = (edits: Map<number, Edit>[]): string =>
    render(
      blocks.flatMap((text, at) => {
        const edit = edits.map((side) => side.get(at)).find((e) => e !== undefined)
        if (!edit) return [text]
        return edit.kind === 'line' ? [edit.text] : edit.kind === 'delete' ? [] : [text, edit.text]
      }),
    )
  return { base: render(blocks), main: apply([sides[0]]), branch: apply([sides[1]]), expected: apply(sides) }
}

const median = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]
const time = (run: () => void): number => {
  const started = performance.now()
  run()
  return performance.now() - started
}

function main(): void {
  const { base, main, branch, expected } = makePages()
  const merge = (): void => {
    const result = mergePageFiles(base, main, branch)
    if (result.text !== expected || result.conflicts.length > 0) throw new Error(`wrong merge: ${result.conflicts.length} conflicts, text ${result.text === expected ? 'as expected' : 'differs'}`)
  }
  const floor = (): void => {
    diffLines(base, main)
    diffLines(base, branch)
  }
  console.log(`load average before: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')} (${os.cpus().length} cores)`)
  const first = time(merge)
  for (let i = 0; i < 3; i++) {
    merge()
    floor()
  }
  const merges: number[] = []
  const floors: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      merges.push(time(merge))
      floors.push(time(floor))
    } else {
      floors.push(time(floor))
      merges.push(time(merge))
    }
  }
  const m = median(merges)
  const f = median(floors)
  const ratio = median(merges.map((ms, i) => ms / floors[i]))
  console.log(`page: ${base.split('\n').length} lines, ${(base.length / 1024).toFixed(0)} KB; ${EDITS_PER_SIDE} disjoint block edits per side; ${ROUNDS} rounds; result checked: both sides' edits, no conflict`)
  console.log(`merge  mergePageFiles                    median ${m.toFixed(1)} ms   (min ${Math.min(...merges).toFixed(1)}, max ${Math.max(...merges).toFixed(1)}; first, cold: ${first.toFixed(1)} ms)   target <= ${TARGET_MS} ms   ${m <= TARGET_MS ? 'PASS' : 'FAIL'}`)
  console.log(`floor  diffLines base→main, base→branch  median ${f.toFixed(1)} ms   (min ${Math.min(...floors).toFixed(1)}, max ${Math.max(...floors).toFixed(1)})`)
  console.log(`ratio  merge / floor, median of rounds   ${ratio.toFixed(2)}   (ratio of medians ${(m / f).toFixed(2)})`)
  console.log(`load average after: ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`)
  if (m > TARGET_MS) process.exitCode = 1
}

main()
