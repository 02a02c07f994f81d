import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { corpusRoundTrip } from './support/import-round-trip'
import { listTree } from './support/import-tree'

/**
 * `quire import` of the corpus's smaller real Git Sync tree (lista: 42 pages, 5 groups, separators;
 * issue 14), merged and mirrored into a fresh folder: every page and SUMMARY.md identical or named by
 * the import's report with its reason. The larger tree: import-gitbook-docs.test.ts.
 */
const importCorpus = corpusRoundTrip()

describe('quire import of a real Git Sync tree', () => {
  it('lista: one change request, merged and mirrored: identical or reported, LICENSE.md not a page', async () => {
    const { result, mirror, newlyBroken } = await importCorpus('lista', (tree) => fs.writeFileSync(path.join(tree, 'LICENSE.md'), '# MIT License\n\nPermission is hereby granted.\n'))
    const reasons = result.notes.map((n) => `${n.kind}: ${n.path}: ${n.reason}`)
    expect(reasons).toContain('not-a-page: LICENSE.md: not in SUMMARY.md: not a page (Git Sync reads only the files it lists); not imported')
    expect(reasons.filter((r) => r.startsWith('group: '))).toHaveLength(5)
    expect(reasons.some((r) => r.startsWith('separator: SUMMARY.md: separator'))).toBe(true)
    expect(fs.existsSync(path.join(mirror, 'LICENSE.md'))).toBe(false)
    // Each asset is uploaded or named.
    const assets = listTree(mirror).filter((p) => p.startsWith('.gitbook/assets/')).length
    expect(assets).toBe(result.verification.uploaded)
    const named = new Set(result.notes.filter((n) => n.path.startsWith('.gitbook/assets/')).map((n) => n.path))
    expect(result.verification.uploaded + named.size).toBeGreaterThanOrEqual(result.verification.assets)
    // Links between pages point where the pages came back (issue 24).
    expect(newlyBroken).toEqual([])
  }, 180_000)
})
