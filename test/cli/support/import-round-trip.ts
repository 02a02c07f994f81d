import fs from 'node:fs'
import path from 'node:path'
import { expect } from 'vitest'
import type { ImportNote } from '../../../src/main/engine/import/import-notes'
import { summaryPages } from '../../../src/main/engine/import/summary-structure'
import { brokenLinkCount, newlyBrokenLinks } from '../../support/link-check'
import { importFixture, makeTree, quire } from './import-tree'

export interface ImportJson {
  space: { id: string }
  folder: string
  complete: boolean
  changeRequest?: { id: string }
  notes: ImportNote[]
  verification: { identical: number; total: number; uploaded: number; assets: number }
}

/**
 * A corpus tree through `quire import` against the real local service, for the tests of one file: the
 * tree goes into one change request of a new space, the change request is merged, a fresh Quire home
 * mirrors the space with `quire sync --once`, and every page SUMMARY.md lists (and the home page) and
 * SUMMARY.md itself are compared with the mirror's: byte-identical at the same path, or named by the
 * import's report. Prints `N/M files identical`.
 *
 * Links (issue 24): each page's links are checked on the mirror's disk against the tree's (test/support/
 * link-check.ts); `newlyBroken` lists those that work in the tree and not in the mirror, but for links
 * to files the report names as too large to upload (the service's limit, not a link's fault).
 */
export function corpusRoundTrip() {
  const fixture = importFixture('quire-import-')

  return async function importCorpus(name: string, prepare?: (tree: string) => void): Promise<{ result: ImportJson; tree: string; mirror: string; newlyBroken: string[] }> {
    const tree = path.join(fixture.base, `tree-${name}`)
    makeTree(name, tree)
    prepare?.(tree)
    const writer = await fixture.signedInHome(`writer-${name}`)
    const started = Date.now()
    const run = await quire('import', tree, '--org', fixture.orgId, '--title', name, '--workspace', path.join(writer, 'ws'), '--json')
    expect(run.code, run.err).toBe(0)
    const seconds = (Date.now() - started) / 1000
    const result = JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as ImportJson
    expect(result.complete).toBe(true)

    const merged = await fixture.t.api.call('mergeChangeRequest', { params: { spaceId: result.space.id, changeRequestId: result.changeRequest!.id } })
    expect(merged.status).toBe(200)
    const reader = await fixture.signedInHome(`reader-${name}`)
    const sync = await quire('sync', '--once', '--space', result.space.id, '--workspace', path.join(reader, 'ws'))
    expect(sync.code, sync.err).toBe(0)
    const mirror = path.join(reader, 'ws', 'Acme', name)

    const summary = fs.readFileSync(path.join(tree, 'SUMMARY.md'), 'utf8')
    const compared = [...new Set(['README.md', ...summaryPages(summary).filter((p) => fs.existsSync(path.join(tree, p))), 'SUMMARY.md'])]
    const noted = new Set(result.notes.map((n) => n.path))
    const unexplained: string[] = []
    let identical = 0
    for (const rel of compared) {
      const mirrored = path.join(mirror, ...rel.split('/'))
      if (fs.existsSync(mirrored) && fs.readFileSync(mirrored).equals(fs.readFileSync(path.join(tree, ...rel.split('/'))))) identical++
      else if (!noted.has(rel)) unexplained.push(rel)
    }
    const v = result.verification
    console.log(
      `${name}: ${identical}/${compared.length} files identical (pages and SUMMARY.md); the import predicted ${v.identical}/${v.total}; assets uploaded ${v.uploaded}/${v.assets}; import took ${seconds.toFixed(1)} s`,
    )
    console.log(`${name}: report:\n${result.notes.map((n) => `  ${n.kind}: ${n.path}: ${n.reason}`).join('\n')}`)
    // Every difference is named by the report, and the report's count is the mirror's.
    expect(unexplained).toEqual([])
    expect(v.identical).toBe(identical)
    expect(v.total).toBe(compared.length)

    // Where each page came back: the report names each page that moved.
    const moved = new Map(result.notes.filter((n) => n.kind === 'moved').map((n) => [n.path, /^comes back as (.+?)(?: \(|$)/.exec(n.reason)?.[1] ?? n.path]))
    const pages = compared.filter((rel) => rel !== 'SUMMARY.md')
    const tooLarge = result.notes.filter((n) => n.kind === 'too-large').map((n) => n.path)
    const found = newlyBrokenLinks(tree, mirror, pages, (page) => moved.get(page) ?? page)
    const newlyBroken = found.filter((link) => !tooLarge.some((asset) => link.includes(asset.slice(asset.lastIndexOf('/') + 1))))
    // The service's own report of the merged space, as `quire links --broken` shows it.
    const links = await quire('links', '--broken', '--json')
    const report = JSON.parse(links.out) as { spaces: Array<{ spaceId: string; links: Array<{ target: string; localFile?: string; line?: number }> }> }
    const serviceLinks = report.spaces.find((s) => s.spaceId === result.space.id)?.links ?? []
    const serviceBroken = `${serviceLinks.length}${serviceLinks.length > 0 ? ` (${serviceLinks.slice(0, 5).map((l) => `${l.localFile}:${l.line} ${l.target}`).join(', ')})` : ''}`
    console.log(
      `${name}: links broken in the tree ${brokenLinkCount(tree, pages)}; newly broken in the mirror ${newlyBroken.length} (and ${found.length - newlyBroken.length} to files too large to upload); quire links --broken: ${serviceBroken}${newlyBroken.length > 0 ? `:\n  ${newlyBroken.slice(0, 20).join('\n  ')}` : ''}`,
    )
    return { result, tree, mirror, newlyBroken }
  }
}
