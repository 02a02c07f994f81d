/**
 * Random revision trees grown by applying random batches, with the blobs
 * they wrote, and the invariants every tree must satisfy.
 */
import { expect } from 'vitest'
import {
  applyContentChanges,
  computeGitPaths,
  flattenPages,
  parsePageMarkdown,
  parseSummary,
  renderSummary,
  serializePageMarkdown,
  walkPages,
  type RevisionTree,
  type SummaryEntry,
  type TreePage,
} from '../../../src/main/content'
import { changeBatch, emptyTree, idMaker } from './generators'
import type { Random } from './random'

export const blobs = new Map<string, Uint8Array>()

export function applyRandom(random: Random, tree: RevisionTree, now: string): RevisionTree {
  const changes = changeBatch(random, tree)
  try {
    const result = applyContentChanges(tree, changes, { newId: idMaker('p'), now })
    for (const [oid, bytes] of result.blobs) blobs.set(oid, bytes)
    return result.tree
  } catch (error) {
    throw new Error(`${String(error)}\nchanges: ${JSON.stringify(changes, null, 1).slice(0, 3000)}`, { cause: error })
  }
}

/** A tree grown by a few random batches. */
export function randomTree(random: Random, batches = random.int(2, 6)): RevisionTree {
  let tree = emptyTree()
  for (let i = 0; i < batches; i++) tree = applyRandom(random, tree, `2024-01-0${i + 1}T00:00:00.000Z`)
  return tree
}

export function checkInvariants(tree: RevisionTree): void {
  const ids = [...flattenPages(tree).map((p) => p.id), ...tree.files.map((f) => f.id)]
  expect(new Set(ids).size).toBe(ids.length)

  const paths = computeGitPaths(tree)
  // Page files are apart on any disk; asset names may differ by case alone, as in a git tree.
  const lower = [...paths.values()].map((p) => (p.startsWith('.gitbook/assets/') ? p : p.toLowerCase()))
  expect(new Set(lower).size).toBe(lower.length)
  for (const page of flattenPages(tree)) if (page.type === 'document') expect(paths.has(page.id)).toBe(true)

  walkPages(tree, ({ page }) => {
    const slugs = page.pages.map((p) => p.slug.toLowerCase())
    expect(new Set(slugs).size).toBe(slugs.length)
  })

  for (const page of flattenPages(tree)) {
    if (page.type !== 'document' || !page.bodyOid) continue
    const body = new TextDecoder().decode(blobs.get(page.bodyOid))
    const file = serializePageMarkdown({ title: page.title, metadata: page.metadata, body })
    expect(parsePageMarkdown(file)).toEqual({ title: page.title, metadata: page.metadata, body })
    expect(serializePageMarkdown(parsePageMarkdown(file))).toBe(file)
  }

  expect(outline(parseSummary(renderSummary(tree, paths)))).toEqual(treeOutline(tree.pages, paths))
}

function outline(entries: SummaryEntry[]): unknown[] {
  return entries.map((e) => [e.title, e.path ?? e.href, outline(e.children)])
}

function treeOutline(pages: TreePage[], paths: Map<string, string>): unknown[] {
  return pages.map((p) => [p.title, paths.get(p.id) ?? p.href, treeOutline(p.pages, paths)])
}

