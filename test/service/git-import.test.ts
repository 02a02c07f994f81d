import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importGitTree } from '../../src/main/engine/import/git-import'
import { ApiGateway } from '../../src/main/engine/gateway/api-gateway'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { UsersRepository } from '../../src/main/service/store/users'
import { serveGitOverHttp } from '../support/git-http'
import { commitTree, corpusTree, git, GITSYNC_CORPUS, retitled, SUMMARY_TEXT_NOT_H1 } from '../support/gitsync-corpus'
import { startTestService, type TestService } from '../support/service'
import { until } from '../support/until'
import { loginTo, quire, quireHomeForFile } from '../cli/support/cli-home'

/**
 * The service's Git import, export and info (spec tag `space-git`) over loopback HTTP, on real git
 * repositories made in temporary folders from the corpus's Git Sync trees. An imported tree mirrored by
 * `quire sync` into a fresh folder is compared with the original, file by file, byte for byte.
 */
let t: TestService
// The CLI's cache and token live in this file's own QUIRE_HOME.
quireHomeForFile('quire-git-import-')
let orgId: string
const made: string[] = []

beforeAll(async () => {
  t = await startTestService()
  orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
  await loginTo(t)
})
afterAll(async () => {
  await t.close().catch(() => undefined)
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}


/** A repository on branch main whose one commit holds `files`. */
function repositoryOf(files: Map<string, Buffer>): string {
  return commitTree(tempDir('quire-git-repo-'), files)
}

async function newSpace(title: string): Promise<string> {
  return ((await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title } })).body as { id: string }).id
}

/** Waits for the space's current Git Sync operation to end; its `GitSyncState`. */
async function settled(spaceId: string) {
  let state: any
  await until(async () => {
    state = (await t.api.call('getSpaceGitInfo', { params: { spaceId } })).body
    return state.operation.state === 'running' ? undefined : true
  }, `the Git Sync operation of space ${spaceId} to end`, 120_000)
  return state
}

/** Mirrors the space with `quire sync --once` into a fresh folder; that folder. */
async function mirror(spaceId: string, title: string): Promise<string> {
  const workspace = tempDir('quire-git-mirror-')
  const run = await quire('sync', '--once', '--space', spaceId, '--workspace', workspace)
  expect(run.code, run.err).toBe(0)
  return path.join(workspace, 'Acme', title)
}

/** Compares each of the tree's pages, SUMMARY.md, assets and tags.yaml with the mirrored file; the paths that differ. */
function compare(original: Map<string, Buffer>, folder: string, label: string): string[] {
  const differ: string[] = []
  let compared = 0
  for (const [rel, bytes] of original) {
    if (!/\.md$/i.test(rel) && !rel.startsWith('.gitbook/assets/') && rel !== '.gitbook/tags.yaml') continue
    compared++
    const file = path.join(folder, ...rel.split('/'))
    if (!fs.existsSync(file) || !fs.readFileSync(file).equals(bytes)) differ.push(rel)
  }
  console.log(`${label}: ${compared - differ.length}/${compared} files identical${differ.length > 0 ? ` (differ: ${differ.join(', ')})` : ''}`)
  return differ
}

describe('Git import (importGitRepository) mirrored by quire sync', () => {
  it('lista through importGitTree (the engine, through the gateway): every page, SUMMARY.md and asset comes back byte for byte', async () => {
    const tree = corpusTree('lista')
    const repo = repositoryOf(tree)
    const spaceId = await newSpace('Lista')
    const gateway = new ApiGateway({ endpoint: t.service.origin, token: t.service.token })
    const result = await importGitTree(gateway, { spaceId, folder: repo })
    expect(result).toMatchObject({ status: 'imported', notes: [], uncommitted: [] })

    const space = (await t.api.call('getSpaceById', { params: { spaceId } })).body as { revision: string; gitSync: unknown }
    expect(result !== 'unsupported' && result.revisionId).toBe(space.revision)
    // The space carries its Git Sync state (spec Space.gitSync) as git/info answers it.
    expect(space.gitSync).toEqual((await t.api.call('getSpaceGitInfo', { params: { spaceId } })).body)
    const revision = (await t.api.call('getRevisionById', { params: { spaceId, revisionId: space.revision } })).body as { pages: Array<{ type: string; title: string }>; files: unknown[] }
    expect(revision.pages.filter((p) => p.type === 'group').map((p) => p.title)).toEqual(['GET STARTED', 'TOKENS', 'protocol', 'for-developers', 'Legal Disclaimer'])
    expect(revision.files).toHaveLength(98)

    const folder = await mirror(spaceId, 'Lista')
    expect(compare(tree, folder, 'lista')).toEqual([])
  }, 240_000)

  it('gitbook-docs under .gitbook.yaml root, in a project directory: identical but for the two SUMMARY entries whose text is not their H1 (noted)', async () => {
    const docs = corpusTree('gitbook-docs')
    const inRepo = new Map<string, Buffer>([['LICENSE', Buffer.from('MIT\n')], ['site/.gitbook.yaml', Buffer.from('root: ./documentation/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\nredirects:\n  old/page: getting-started/quickstart.md\n')]])
    for (const [rel, bytes] of docs) inRepo.set(`site/documentation/${rel}`, bytes)
    const repo = repositoryOf(inRepo)
    const spaceId = await newSpace('GitBook docs')
    const url = pathToFileURL(repo).href
    // The service runs in this process: its resident memory while it imports 594 assets (132 MB).
    const rssBefore = process.memoryUsage().rss
    let rssPeak = rssBefore
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20)
    const started = Date.now()
    const answer = await t.api.call('importGitRepository', { params: { spaceId }, body: { url, ref: 'refs/heads/main', repoProjectDirectory: 'site' } })
    expect(answer.status).toBe(204)
    const state = await settled(spaceId)
    clearInterval(sampler)
    console.log(`gitbook-docs import: ${Date.now() - started} ms, RSS ${Math.round(rssBefore / 2 ** 20)} MB before, peak ${Math.round(rssPeak / 2 ** 20)} MB`)
    expect(state).toMatchObject({ installationStatus: 'active', url, operation: { state: 'success', direction: 'import' } })
    console.log(`gitbook-docs notes:\n  ${state.operation.notes.join('\n  ')}`)
    expect(state.operation.notes).toHaveLength(3)
    expect(state.operation.notes).toContain('.gitbook.yaml: redirects not imported: the service keeps no redirects of a space')

    const folder = await mirror(spaceId, 'GitBook docs')
    // SUMMARY.md lists the two pages whose entry text was not their H1 by their H1 (noted above); the rest is as written.
    const expected = new Map(docs).set('SUMMARY.md', Buffer.from(retitled(docs.get('SUMMARY.md')!.toString(), SUMMARY_TEXT_NOT_H1['gitbook-docs'])))
    expect(compare(expected, folder, 'gitbook-docs (SUMMARY.md with the H1 titles)')).toEqual([])
    expect(compare(docs, folder, 'gitbook-docs (as written)')).toEqual(['SUMMARY.md'])
  }, 300_000)
})

describe('Git import: standalone, info, bad input', () => {
  const small = () =>
    new Map([
      ['SUMMARY.md', Buffer.from('# Table of contents\n\n* [Home](README.md)\n\n## Guides\n\n* [Install](guides/install.md)\n\n***\n\n* [Status](https://status.example.com)\n')],
      ['README.md', Buffer.from('# Home\n\nWelcome.\n')],
      ['guides/install.md', Buffer.from('# Install\n\nRun it.\n')],
    ])

  it('info is 404 before any import; standalone makes a revision without touching the space', async () => {
    const spaceId = await newSpace('Standalone')
    const none = await t.api.call('getSpaceGitInfo', { params: { spaceId } })
    expect(none.status).toBe(404)
    const before = ((await t.api.call('getSpaceById', { params: { spaceId } })).body as { revision: string }).revision

    const repo = repositoryOf(small())
    const answer = await t.api.call('importGitRepository', { params: { spaceId }, body: { url: pathToFileURL(repo).href, ref: 'refs/heads/main', standalone: true } })
    expect(answer.status).toBe(204)
    const state = await settled(spaceId)
    expect(state.operation.state).toBe('success')
    expect(((await t.api.call('getSpaceById', { params: { spaceId } })).body as { revision: string }).revision).toBe(before)
    const revision = (await t.api.call('getRevisionById', { params: { spaceId, revisionId: state.operation.revision } })).body as { pages: any[] }
    expect(revision.pages.map((p) => [p.type, p.title])).toEqual([
      ['document', 'Home'],
      ['group', 'Guides'],
      ['link', 'Status'],
    ])
    expect(revision.pages[2].target).toEqual({ kind: 'url', url: 'https://status.example.com' })

    // Imported again with a page edited and one added after the separator: a new standalone revision, the space still untouched.
    const edited = small().set('guides/install.md', Buffer.from('# Install\n\nRun it twice.\n')).set('faq.md', Buffer.from('# FAQ\n'))
    edited.set('SUMMARY.md', Buffer.from(`${edited.get('SUMMARY.md')!.toString()}* [FAQ](faq.md)\n`))
    const again = repositoryOf(edited)
    await t.api.call('importGitRepository', { params: { spaceId }, body: { url: pathToFileURL(again).href, ref: 'refs/heads/main', standalone: true } })
    const second = await settled(spaceId)
    expect(second.operation).toMatchObject({ state: 'success' })
    const next = (await t.api.call('getRevisionById', { params: { spaceId, revisionId: second.operation.revision } })).body as { pages: any[] }
    expect(next.pages.map((p) => p.title)).toEqual(['Home', 'Guides', 'Status', 'FAQ'])
    expect(((await t.api.call('getSpaceById', { params: { spaceId } })).body as { revision: string }).revision).toBe(before)
  })

  it('a second import keeps the ids of the pages, groups and files at the same paths', async () => {
    const spaceId = await newSpace('Reimported')
    const files = small().set('.gitbook/assets/logo.png', Buffer.from('89504e470d0a1a0a', 'hex'))
    const first = repositoryOf(files)
    await t.api.call('importGitRepository', { params: { spaceId }, body: { url: pathToFileURL(first).href, ref: 'refs/heads/main' } })
    expect((await settled(spaceId)).operation.state).toBe('success')
    const ids = async () => {
      const revision = (await t.api.call('getCurrentRevision', { params: { spaceId } })).body as { pages: any[]; files: any[] }
      const out = new Map<string, string>()
      const walk = (pages: any[]) => pages.forEach((p) => (out.set(`${p.type}:${p.title}`, p.id), walk(p.pages ?? [])))
      walk(revision.pages)
      for (const f of revision.files) out.set(`file:${f.name}`, f.id)
      return out
    }
    const before = await ids()
    const edited = new Map(files).set('guides/install.md', Buffer.from('# Install\n\nRun it twice.\n'))
    await t.api.call('importGitRepository', { params: { spaceId }, body: { url: pathToFileURL(repositoryOf(edited)).href, ref: 'refs/heads/main' } })
    expect((await settled(spaceId)).operation.state).toBe('success')
    expect(await ids()).toEqual(before)
  })

  it('imports from a loopback http:// repository (git smart HTTP)', async () => {
    const repo = repositoryOf(small())
    const served = await serveGitOverHttp(path.dirname(repo))
    try {
      const spaceId = await newSpace('Over HTTP')
      const url = `${served.origin}/${path.basename(repo)}/.git`
      const answer = await t.api.call('importGitRepository', { params: { spaceId }, body: { url, ref: 'refs/heads/main' } })
      expect(answer.status, JSON.stringify(answer.body)).toBe(204)
      expect((await settled(spaceId)).operation).toMatchObject({ state: 'success', commit: git(repo, 'rev-parse', 'HEAD').toString().trim() })
      const folder = await mirror(spaceId, 'Over HTTP')
      expect(compare(small(), folder, 'over http')).toEqual([])
    } finally {
      await served.close()
    }
  })

  it('refuses what it cannot or will not read with a 400 that says why', async () => {
    const spaceId = await newSpace('Refusals')
    const repo = repositoryOf(small())
    const noSummary = repositoryOf(new Map([['README.md', Buffer.from('# Home\n')]]))
    const url = pathToFileURL(repo).href
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ url: 'https://github.com/GitbookIO/public-docs.git', ref: 'refs/heads/main' }, /only reads file:\/\/ and loopback http\(s\) repositories/],
      [{ url: 'ssh://git@127.0.0.1/x.git', ref: 'refs/heads/main' }, /ssh: repositories are not supported/],
      [{ url: 'not a url', ref: 'refs/heads/main' }, /is not a URL/],
      [{ url: pathToFileURL(path.join(repo, 'nowhere')).href, ref: 'refs/heads/main' }, /cannot fetch refs\/heads\/main from file:.*nowhere/],
      [{ url, ref: 'refs/heads/nope' }, /cannot fetch refs\/heads\/nope .*couldn't find remote ref/],
      [{ url, ref: '--upload-pack=touch /tmp/x' }, /is not a git ref/],
      [{ url, ref: 'refs/heads/main', repoProjectDirectory: '../elsewhere' }, /repoProjectDirectory "..\/elsewhere" leaves the repository/],
      [{ url: pathToFileURL(noSummary).href, ref: 'refs/heads/main' }, /the tree has no SUMMARY\.md/],
    ]
    for (const [body, message] of cases) {
      const answer = await t.api.call('importGitRepository', { params: { spaceId }, body })
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect((answer.body as { error: { code: number; message: string } }).error).toMatchObject({ code: 400, message: expect.stringMatching(message) })
    }
    // A file:// repository is on the service's own disk: an editor who is not an admin of the space may not name one.
    const users = t.service.store.repo(UsersRepository)
    const editor = users.create({ displayName: 'Editor', email: 'editor@example.com' })
    t.service.store.repo(SpacesRepository).setUserRole(spaceId, editor.id, 'edit')
    const asEditor = await t.api.as(users.issueToken(editor.id)).call('importGitRepository', { params: { spaceId }, body: { url, ref: 'refs/heads/main' } })
    expect(asEditor.status).toBe(403)
    expect((asEditor.body as { error: { message: string } }).error.message).toMatch(/needs the admin role/)
    // The last refusal is the space's last operation, failed with the same reason.
    expect((await t.api.call('getSpaceGitInfo', { params: { spaceId } })).body).toMatchObject({ operation: { state: 'failure', error: expect.stringMatching(/no SUMMARY\.md/) } })
  })
})

describe('Git export (exportToGitRepository)', () => {
  it('commits the space as a Git Sync tree on the ref, keeping the files that are not docs: the imported tree files come back byte for byte', async () => {
    // lista, with gitbook-docs' tags.yaml: the tags go in with the import and come out with the export.
    const tree = corpusTree('lista').set('.gitbook/tags.yaml', fs.readFileSync(path.join(GITSYNC_CORPUS, 'gitbook-docs', '.gitbook', 'tags.yaml')))
    const source = repositoryOf(tree)
    const spaceId = await newSpace('Exported')
    await t.api.call('importGitRepository', { params: { spaceId }, body: { url: pathToFileURL(source).href, ref: 'refs/heads/main' } })
    expect((await settled(spaceId)).operation.state).toBe('success')

    // A repository with files of its own and an old page its SUMMARY.md lists: the old page goes, the others stay.
    const target = repositoryOf(
      new Map([
        ['LICENSE', Buffer.from('MIT\n')],
        ['CONTRIBUTING.md', Buffer.from('# Contributing\n')],
        ['SUMMARY.md', Buffer.from('# Table of contents\n\n* [Old](old-page.md)\n')],
        ['old-page.md', Buffer.from('# Old\n')],
      ]),
    )
    git(target, 'checkout', '--quiet', '--detach')
    const answer = await t.api.call('exportToGitRepository', { params: { spaceId }, body: { url: pathToFileURL(target).href, ref: 'refs/heads/main', commitMessage: 'Export from the test' } })
    expect(answer.status).toBe(204)
    const state = await settled(spaceId)
    expect(state.operation).toMatchObject({ state: 'success', direction: 'export' })
    expect(git(target, 'log', '-1', '--format=%s', 'refs/heads/main').toString().trim()).toBe('Export from the test')
    expect(git(target, 'rev-parse', 'refs/heads/main').toString().trim()).toBe(state.operation.commit)

    const listed = git(target, 'ls-tree', '-r', '--name-only', '-z', 'refs/heads/main').toString().split('\0').filter(Boolean)
    expect(listed).toContain('LICENSE')
    expect(listed).toContain('CONTRIBUTING.md')
    expect(listed).not.toContain('old-page.md')
    const differ = [...tree.keys()].filter((rel) => !git(target, 'cat-file', 'blob', `refs/heads/main:${rel}`).equals(tree.get(rel)!))
    console.log(`lista exported: ${tree.size - differ.length}/${tree.size} files identical`)
    expect(differ).toEqual([])
    expect(listed.filter((rel) => rel !== 'LICENSE' && rel !== 'CONTRIBUTING.md').sort()).toEqual([...tree.keys()].sort())
  }, 240_000)
})
