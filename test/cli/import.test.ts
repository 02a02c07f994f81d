import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ImportNote } from '../../src/main/engine/import/import-notes'
import { summaryPages } from '../../src/main/engine/import/summary-structure'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { startTestService, type TestService } from '../support/service'
import { listTree, makeTree, quire } from './support/import-tree'

/**
 * `quire import` of the corpus's real Git Sync trees (issue 14), against the real local service: the
 * tree goes into one change request of a new space, the change request is merged, a fresh workspace
 * mirrors the space with `quire sync --once`, and every page and SUMMARY.md of the tree is compared with
 * the mirror's: byte-identical at its path, or named by the import's report with its reason.
 */
let t: TestService
let base: string
let orgId: string

beforeAll(async () => {
  t = await startTestService()
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-import-'))
  process.env.QUIRE_TOKEN_STORE = 'file'
  orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
})
afterAll(async () => {
  await t.close()
  fs.rmSync(base, { recursive: true, force: true })
  delete process.env.QUIRE_HOME
  delete process.env.QUIRE_TOKEN_STORE
})

/** A signed-in Quire home of its own (cache, tokens) under the test's folder. */
async function home(name: string): Promise<string> {
  const dir = path.join(base, name)
  fs.mkdirSync(dir, { recursive: true })
  process.env.QUIRE_HOME = dir
  const login = await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)
  expect(login.code, login.err).toBe(0)
  return dir
}

interface ImportJson {
  space: { id: string }
  folder: string
  complete: boolean
  changeRequest?: { id: string }
  notes: ImportNote[]
  verification: { identical: number; total: number; uploaded: number; assets: number }
}

async function importCorpus(name: string, prepare?: (tree: string) => void) {
  const tree = path.join(base, `tree-${name}`)
  makeTree(name, tree)
  prepare?.(tree)
  const writer = await home(`writer-${name}`)
  const run = await quire('import', tree, '--org', orgId, '--title', name, '--workspace', path.join(writer, 'ws'), '--json')
  expect(run.code, run.err).toBe(0)
  const result = JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as ImportJson
  expect(result.complete).toBe(true)

  const merged = await t.api.call('mergeChangeRequest', { params: { spaceId: result.space.id, changeRequestId: result.changeRequest!.id } })
  expect(merged.status).toBe(200)
  const reader = await home(`reader-${name}`)
  const sync = await quire('sync', '--once', '--space', result.space.id, '--workspace', path.join(reader, 'ws'))
  expect(sync.code, sync.err).toBe(0)
  const mirror = path.join(reader, 'ws', 'Acme', name)

  // Every page SUMMARY.md lists (and the home page), and SUMMARY.md itself.
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
  console.log(`${name}: ${identical}/${compared.length} files identical (pages and SUMMARY.md); the import predicted ${result.verification.identical}/${result.verification.total}; assets uploaded ${result.verification.uploaded}/${result.verification.assets}`)
  console.log(`${name}: report:\n${result.notes.map((n) => `  ${n.kind}: ${n.path}: ${n.reason}`).join('\n')}`)
  // Every difference is named by the report, and the report's count is the mirror's.
  expect(unexplained).toEqual([])
  expect(result.verification.identical).toBe(identical)
  return { result, tree, mirror }
}

describe('quire import of a real Git Sync tree', () => {
  it('lista: one change request, merged and mirrored: identical or reported, LICENSE.md not a page', async () => {
    const { result, mirror } = await importCorpus('lista', (tree) => fs.writeFileSync(path.join(tree, 'LICENSE.md'), '# MIT License\n\nPermission is hereby granted.\n'))
    const reasons = result.notes.map((n) => `${n.kind}: ${n.path}: ${n.reason}`)
    expect(reasons).toContain('not-a-page: LICENSE.md: not in SUMMARY.md: not a page (Git Sync reads only the files it lists); not imported')
    expect(reasons.filter((r) => r.startsWith('group: '))).toHaveLength(5)
    expect(reasons.some((r) => r.startsWith('separator: SUMMARY.md: separator'))).toBe(true)
    expect(fs.existsSync(path.join(mirror, 'LICENSE.md'))).toBe(false)
    // Each asset is uploaded or named.
    const assets = listTree(mirror).filter((p) => p.startsWith('.gitbook/assets/')).length
    expect(assets).toBe(result.verification.uploaded)
  }, 180_000)
  it('gitbook-docs: URL and anchor entries, front matter keys, tags.yaml: identical or reported', async () => {
    const { result } = await importCorpus('gitbook-docs')
    const kinds = new Set(result.notes.map((n) => n.kind))
    for (const kind of ['group', 'link-entry', 'anchor-entry', 'not-content'] as const) expect(kinds, kind).toContain(kind)
    expect(result.notes.find((n) => n.path === '.gitbook/tags.yaml')?.reason).toMatch(/has no place for/)
  }, 300_000)
})
