/**
 * Pages as lists of blocks, and edits of them by two writers, for the
 * property tests of the block-level page merge. Each block is one unit of the
 * merge (a list always follows a heading, so two lists never become one when
 * a block between them is deleted). Edits mark the lines they write with a
 * word unique to the writer, so a test can look for every one of them.
 */
import { words } from './generators'
import type { Random } from './random'

export interface BlockPage {
  frontMatter: Array<[key: string, value: string]>
  title: string
  blocks: string[]
}

const BLOCKS: Array<(random: Random) => string> = [
  (r) => words(r, 3, 20).replace(/[{}%`|<>#*\\[\]_&]/g, 'x'),
  (r) => `## ${r.pick(['Setup', 'Usage', 'Notes', 'Étape'])} ${r.int(0, 99)}`,
  (r) => `### Items\n\n${r.many(r.int(1, 4), () => `* ${r.pick(['one', 'two', 'three'])} ${r.int(0, 999)}`).join('\n')}`,
  (r) => `### Steps\n\n${r.many(r.int(1, 3), () => `${r.int(1, 9)}. step ${r.int(0, 999)}`).join('\n')}`,
  (r) => `{% hint style="${r.pick(['info', 'warning'])}" %}\nhint ${r.int(0, 999)} text\n{% endhint %}`,
  (r) => `{% hint style="info" %}\nfirst ${r.int(0, 999)}\n\nsecond ${r.int(0, 999)}\n\nthird ${r.int(0, 999)}\n{% endhint %}`,
  (r) => `{% tabs %}\n{% tab title="A" %}\ntab a ${r.int(0, 999)}\n{% endtab %}\n\n{% tab title="B" %}\ntab b ${r.int(0, 999)}\n{% endtab %}\n{% endtabs %}`,
  (r) => `{% code title="a.js" %}\n\`\`\`js\nconst x = ${r.int(0, 99)} * 2_000\nconst y = x\n\`\`\`\n{% endcode %}`,
  (r) => `{% embed url="https://example.com/${r.int(0, 999)}" %}`,
  (r) => `<figure><img src="../.gitbook/assets/image (${r.int(1, 9)}).png" alt=""><figcaption><p>fig ${r.int(0, 999)}</p></figcaption></figure>`,
  (r) => `> quote ${r.int(0, 999)}\n> more ${r.int(0, 999)}`,
  (r) => `| a | b |\n| - | - |\n| row ${r.int(0, 999)} | 1 |\n| row ${r.int(0, 999)} | 2 |`,
  (r) => `Some _under_score_ and *star* and \\_escaped\\_ [link](other.md#anchor) ${r.int(0, 999)}`,
  (r) => `\`\`\`\nplain ${r.int(0, 999)}\n{% hint %} in code\n\`\`\``,
]

export function randomBlock(random: Random): string {
  return random.pick(BLOCKS)(random)
}

export function randomPage(random: Random): BlockPage {
  const keys: Array<[string, string]> = [['description', `about ${random.int(0, 999)}`], ['icon', 'gear'], ['hidden', 'true'], ['coverY', String(random.int(0, 99))]]
  return {
    frontMatter: keys.filter(() => random.bool(0.5)),
    title: `Title ${random.int(0, 999)}`,
    blocks: random.many(random.int(1, 12), () => randomBlock(random)),
  }
}

export function renderPage(page: BlockPage): string {
  const frontMatter = page.frontMatter.length === 0 ? '' : `---\n${page.frontMatter.map(([k, v]) => `${k}: ${v}\n`).join('')}---\n\n`
  const body = page.blocks.length === 0 ? '' : `\n\n${page.blocks.join('\n\n')}`
  return `${frontMatter}# ${page.title}${body}\n`
}

/** Lines a writer can extend without changing what kind of block they are in. */
const EDITABLE_LINE = /^(?:[#*>]|\d+\.|[A-Za-z]|const)/

/** Appends `mark` to one editable line of the block (or replaces the block when it has none). */
export function editBlock(random: Random, block: string, mark: string): string {
  const lines = block.split('\n')
  const editable = lines.map((line, i) => (EDITABLE_LINE.test(line) ? i : -1)).filter((i) => i !== -1)
  if (editable.length === 0) return `${mark} replaced`
  const at = random.pick(editable)
  lines[at] = `${lines[at]} ${mark}`
  return lines.join('\n')
}

export type BlockEdit =
  | { kind: 'edit'; index: number; text: string }
  | { kind: 'delete'; index: number }
  /** Inserted after block `index` (-1: before the first). */
  | { kind: 'insert'; index: number; text: string }

/**
 * Random edits by one writer, of blocks at `indexes` only. Each touches its
 * block (an insertion, the blocks on both sides of it).
 */
export function randomEdits(random: Random, page: BlockPage, indexes: number[], mark: string): BlockEdit[] {
  return indexes.map((index, n): BlockEdit => {
    const roll = random.next()
    if (roll < 0.6) return { kind: 'edit', index, text: editBlock(random, page.blocks[index], `${mark}${n}`) }
    if (roll < 0.8) return { kind: 'delete', index }
    return { kind: 'insert', index, text: `${mark}${n} inserted ${words(random, 1, 3).replace(/[^\p{L} ]/gu, '')}` }
  })
}

export function applyEdits(page: BlockPage, edits: BlockEdit[]): BlockPage {
  const blocks: string[] = []
  const at = (index: number): BlockEdit[] => edits.filter((e) => e.index === index)
  for (const edit of at(-1)) if (edit.kind === 'insert') blocks.push(edit.text)
  page.blocks.forEach((block, index) => {
    const mine = at(index)
    const change = mine.find((e) => e.kind !== 'insert')
    if (!change) blocks.push(block)
    else if (change.kind === 'edit') blocks.push(change.text)
    for (const edit of mine) if (edit.kind === 'insert') blocks.push(edit.text)
  })
  return { ...page, blocks }
}

/**
 * Two sets of block indexes at least two apart from each other (so neither
 * writer's edit touches a block next to one the other edits).
 */
export function disjointIndexes(random: Random, count: number): [number[], number[]] {
  const main: number[] = []
  const branch: number[] = []
  for (let i = 0; i < count; i++) {
    const side = random.int(0, 3)
    const other = side === 0 ? branch : main
    if (side >= 2 || other.some((j) => Math.abs(i - j) < 2)) continue
    ;(side === 0 ? main : branch).push(i)
  }
  return [main, branch]
}
