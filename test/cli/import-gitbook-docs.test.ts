import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { corpusRoundTrip } from './support/import-round-trip'

/**
 * `quire import` of the corpus's larger real Git Sync tree (gitbook-docs: 182 pages, 12 groups, URL and
 * anchor entries, front matter keys beyond page metadata, `.gitbook/tags.yaml`; issue 14), merged and
 * mirrored into a fresh folder: every page and SUMMARY.md identical or named by the report.
 */
const importCorpus = corpusRoundTrip()

describe('quire import of a real Git Sync tree', () => {
  it('gitbook-docs: URL and anchor entries, front matter keys, tags.yaml: identical or reported', async () => {
    const { result, mirror, newlyBroken } = await importCorpus('gitbook-docs')
    const kinds = new Set(result.notes.map((n) => n.kind))
    for (const kind of ['group', 'link-entry', 'anchor-entry', 'not-content'] as const) expect(kinds, kind).toContain(kind)
    expect(result.notes.filter((n) => n.kind === 'group')).toHaveLength(12)
    expect(result.notes.find((n) => n.path === '.gitbook/tags.yaml')?.reason).toMatch(/has no place for/)
    // Issue 24: the pages of the 12 groups came back at the top level; links between pages point there.
    expect(newlyBroken).toEqual([])
    expect(fs.existsSync(path.join(mirror, 'quickstart.md'))).toBe(true)
  }, 180_000)
})
