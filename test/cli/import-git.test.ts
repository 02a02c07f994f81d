import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { summaryPages } from '../../src/main/engine/import/summary-structure'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { changeRequestRevision, openChangeRequests, pagesOf } from '../engine/sync-up/support/workspace'
import { startTestService, type TestService } from '../support/service'
import { corpusTree, writeTree } from '../support/gitsync-corpus'
import { quire } from './support/import-tree'

/**
 * `quire import` of a tree that is a git repository into a new space (issue 14): the service's own Git
 * import takes it, so groups, separators and URL entries come through and the tree comes back whole;
 * a repository with changes not committed, or a space that already holds pages, goes through the
 * content API instead (its change request), and the report says why.
 */
let t: TestService
let base: string
let orgId: string

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Writer', GIT_AUTHOR_EMAIL: 'writer@quire.local', GIT_COMMITTER_NAME: 'Writer', GIT_COMMITTER_EMAIL: 'writer@quire.local' }
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV, maxBuffer: 256 * 1024 * 1024 })

beforeAll(async () => {
  t = await startTestService()
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-import-git-'))
  process.env.QUIRE_TOKEN_STORE = 'file'
  orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
})
afterAll(async () => {
  await t.close()
  fs.rmSync(base, { recursive: true, force: true })
  delete process.env.QUIRE_HOME
  delete process.env.QUIRE_TOKEN_STORE
})

async function signedIn(name: string): Promise<string> {
  const dir = path.join(base, name)
  fs.mkdirSync(dir, { recursive: true })
  process.env.QUIRE_HOME = dir
  const login = await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)
  expect(login.code, login.err).toBe(0)
  return dir
}

/** The lista corpus tree as a git repository with everything committed. */
function repository(name: string): string {
  const dir = path.join(base, name)
  writeTree(dir, corpusTree('lista'))
  git(dir, 'init', '--quiet', '--initial-branch=main')
  git(dir, 'add', '--all')
  git(dir, 'commit', '--quiet', '-m', 'docs')
  return dir
}

interface ImportJson {
  space: { id: string }
  strategy: string
  complete: boolean
  revision?: string
  changeRequest?: { id: string }
  notes: Array<{ kind: string; path: string; reason: string }>
}

async function importInto(tree: string, home: string, title: string): Promise<ImportJson> {
  const run = await quire('import', tree, '--org', orgId, '--title', title, '--workspace', path.join(home, 'ws'), '--json')
  expect(run.code, run.err).toBe(0)
  return JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as ImportJson
}

describe('quire import of a git repository', () => {
  it('into a new space: the service imports it (no change request); mirrored, every page and SUMMARY.md (groups, separators) is byte for byte the tree', async () => {
    const tree = repository('lista-repo')
    const writer = await signedIn('writer')
    const result = await importInto(tree, writer, 'Lista')
    expect(result.strategy).toBe('Git import')
    expect(result.complete).toBe(true)
    expect(result.revision).toBeTruthy()
    expect(result.changeRequest).toBeUndefined()
    expect(await openChangeRequests(t.api, result.space.id)).toEqual([])

    const reader = await signedIn('reader')
    const sync = await quire('sync', '--once', '--space', result.space.id, '--workspace', path.join(reader, 'ws'))
    expect(sync.code, sync.err).toBe(0)
    const mirror = path.join(reader, 'ws', 'Acme', 'Lista')
    const summary = fs.readFileSync(path.join(tree, 'SUMMARY.md'), 'utf8')
    const compared = [...new Set(['README.md', ...summaryPages(summary).filter((p) => fs.existsSync(path.join(tree, p))), 'SUMMARY.md'])]
    const same = (rel: string) => {
      const mirrored = path.join(mirror, ...rel.split('/'))
      return fs.existsSync(mirrored) && fs.readFileSync(mirrored).equals(fs.readFileSync(path.join(tree, ...rel.split('/'))))
    }
    const identical = compared.filter(same)
    console.log(`lista through Git import: ${identical.length}/${compared.length} files identical (pages and SUMMARY.md)`)
    expect(compared.filter((rel) => !same(rel))).toEqual([])
    // The writer's own folder follows the import too.
    expect(fs.readFileSync(path.join(writer, 'ws', 'Acme', 'Lista', 'SUMMARY.md'), 'utf8')).toBe(summary)
  }, 240_000)

  it('changes not committed: the content API takes the files as they are, into a change request, and the report says why', async () => {
    const tree = repository('lista-dirty')
    fs.appendFileSync(path.join(tree, 'README.md'), '\nA line not committed yet.\n')
    const result = await importInto(tree, await signedIn('writer-dirty'), 'Dirty')
    expect(result.strategy).toBe('content API')
    expect(result.changeRequest).toBeDefined()
    expect(result.notes.some((n) => n.reason.includes('changes not committed (README.md)'))).toBe(true)
    const params = { spaceId: result.space.id, changeRequestId: result.changeRequest!.id }
    const readme = [...pagesOf(await changeRequestRevision(t.api, params.spaceId, params.changeRequestId))].find(([, p]) => p.path === 'README.md')![0]
    const page = (await t.api.call('getPageInChangeRequestById', { params: { ...params, pageId: readme }, query: { format: 'markdown' } })).body
    expect(page.markdown).toContain('A line not committed yet.')
  }, 240_000)
})
