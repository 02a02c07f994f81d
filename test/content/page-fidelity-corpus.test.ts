/**
 * The real Git Sync trees of ../shared/corpus (read in place, never copied): every page file written
 * to the local service over HTTP, read back with `format=markdown`, merged and mirrored by the sync
 * engine. Prints `N/M files identical` and the reason for each file that is not.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { splitPageMarkdown, type ContentChange } from '../../src/main/content'
import { scanPageFile } from '../../src/main/content/markdown/page-head'
import { startSyncHarness, type SyncHarness } from '../engine/support/sync-harness'

const CORPUS = fileURLToPath(new URL('../../../shared/corpus/gitsync', import.meta.url))

/** Page files of a tree: every `.md` but SUMMARY.md and what lives under `.gitbook/` (assets, includes). */
function pageFiles(root: string, folder = ''): string[] {
  return fs.readdirSync(path.join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = folder === '' ? entry.name : `${folder}/${entry.name}`
    if (entry.isDirectory()) return entry.name === '.gitbook' ? [] : pageFiles(root, relative)
    return entry.name.endsWith('.md') && relative !== 'SUMMARY.md' ? [relative] : []
  })
}

/** Which part of the file differs first: front matter, title line, the blank lines around, body or end. */
function reason(wrote: string, got: string): string {
  const a = scanPageFile(wrote)
  const b = scanPageFile(got)
  const part = (text: string, from: number | undefined, to: number | undefined) => (from === undefined ? '' : text.slice(from, to))
  if (part(wrote, a.frontMatter?.start, a.frontMatter?.end) !== part(got, b.frontMatter?.start, b.frontMatter?.end)) return 'front matter'
  if (part(wrote, a.heading?.start, a.heading?.end) !== part(got, b.heading?.start, b.heading?.end)) return a.heading ? 'title line' : 'a title line added'
  if (wrote.slice(0, a.bodyStart) !== got.slice(0, b.bodyStart)) return 'blank lines before the body'
  const body = (text: string, start: number) => text.slice(start).trimEnd()
  if (body(wrote, a.bodyStart) !== body(got, b.bodyStart)) {
    const x = body(wrote, a.bodyStart).split('\n')
    const y = body(got, b.bodyStart).split('\n')
    const line = x.findIndex((text, i) => text !== y[i])
    return `body, line ${line + 1}: ${JSON.stringify(x[line])} became ${JSON.stringify(y[line])}`
  }
  return 'the end of the file'
}

let h: SyncHarness
let orgId: string
beforeAll(async () => {
  h = await startSyncHarness({ demo: true })
  orgId = ((await h.t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }).items[0].id
})
afterAll(() => h.close())

describe('the corpus through the local service and the client mirror', () => {
  it('gives every page file of both trees back byte for byte', async () => {
    const api = h.t.api
    const differences: string[] = []
    let identical = 0
    let total = 0
    for (const tree of fs.readdirSync(CORPUS).sort()) {
      const root = path.join(CORPUS, tree)
      const files = pageFiles(root).sort()
      const spaceId = ((await api.call('createSpace', { params: { organizationId: orgId }, body: { title: `Corpus ${tree}`, empty: true } })).body as { id: string }).id
      const changeRequestId = ((await api.call('createChangeRequest', { params: { spaceId }, body: { subject: tree } })).body as { id: string }).id
      const written = new Map<string, string>()
      for (let at = 0; at < files.length; at += 50) {
        const batch = files.slice(at, at + 50)
        const changes: ContentChange[] = batch.map((file, i) => {
          const markdown = fs.readFileSync(path.join(root, file), 'utf8')
          // The title SUMMARY.md would give a page with no H1; a file's own H1 wins over it.
          return { operation: 'insert_page', ref: `corpus-${at + i}`, title: path.basename(file, '.md'), document: { markdown } }
        })
        const answer = (await api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId }, query: { compat: false }, body: { changes } })).body as {
          changes: Array<{ ref?: string; page: { id: string } }>
        }
        for (const change of answer.changes) written.set(change.page.id, batch[Number(change.ref?.slice('corpus-'.length)) - at])
      }
      expect(written.size).toBe(files.length)

      const viaApi = new Map<string, string>()
      for (const pageId of written.keys()) {
        const page = await api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId, pageId }, query: { format: 'markdown' } })
        viaApi.set(pageId, (page.body as { markdown: string }).markdown)
      }
      expect((await api.call('mergeChangeRequest', { params: { spaceId, changeRequestId } })).body).toMatchObject({ result: 'merge' })
      const engine = h.engine()
      await engine.resolveSpaces([spaceId])
      h.cache.setSelection({ spaces: [spaceId] })
      expect((await engine.pass()).spaces.map((s) => s.state)).toEqual(['synced'])
      const revision = (await api.call('getCurrentRevision', { params: { spaceId } })).body as { pages: Array<{ id: string; git?: { path: string } }> }
      const mirror = path.join(h.workspace, 'Quire Demo', `Corpus ${tree}`)

      for (const page of revision.pages) {
        const file = written.get(page.id)
        if (!file || !page.git) continue
        total++
        const original = fs.readFileSync(path.join(root, file), 'utf8')
        const mirrored = fs.readFileSync(path.join(mirror, page.git.path), 'utf8')
        if (viaApi.get(page.id) !== original) differences.push(`${tree}/${file}: GET ?format=markdown differs in ${reason(original, viaApi.get(page.id) ?? '')}`)
        else if (mirrored !== original) differences.push(`${tree}/${file}: the mirrored file differs in ${reason(original, mirrored)}`)
        else identical++
        // A page whose file has no H1 keeps the title it was given (SUMMARY's), and its file still has none.
        if (splitPageMarkdown(original).title === undefined) expect(splitPageMarkdown(mirrored).title, file).toBeUndefined()
      }
    }
    console.log(`${identical}/${total} files identical${differences.length > 0 ? `; the rest:\n  ${differences.join('\n  ')}` : ''}`)
    expect(total).toBe(224)
    expect(differences).toEqual([])
  })
})
