import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { startTestService, type TestService } from '../support/service'
import { until } from '../support/until'

/**
 * Reusable content (spec `RevisionReusableContent`) through the local service: a Git Sync tree's
 * `.gitbook/includes/*.md` imported by the service's Git import, then read by the four operations
 * (getReusableContentById, ...InChangeRequestById, ...InRevisionById, ...DocumentInRevisionById), each
 * answer validated against the published spec by the test client, and exported back as it came.
 */
let t: TestService
let orgId: string
const made: string[] = []

beforeAll(async () => {
  t = await startTestService()
  orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
})
afterAll(async () => {
  await t.close().catch(() => undefined)
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' }
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: GIT_ENV }).toString()

function repositoryOf(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-includes-repo-'))
  made.push(dir)
  git(dir, 'init', '--quiet', '--initial-branch=main')
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), text)
  }
  git(dir, 'add', '--all')
  git(dir, 'commit', '--quiet', '-m', 'docs')
  return dir
}

async function settled(spaceId: string) {
  let state: any
  await until(async () => {
    state = (await t.api.call('getSpaceGitInfo', { params: { spaceId } })).body
    return state.operation.state === 'running' ? undefined : true
  }, `the Git Sync operation of space ${spaceId} to end`, 60_000)
  return state
}

const NEED_HELP = '---\ntitle: Need help?\n---\n\n{% hint style="info" %}\nAsk in the [forum](https://forum.example.com) or read the [guide](../../guide.md).\n{% endhint %}\n'
const NO_TITLE = 'Shared **text** without front matter.\n'
const TREE = {
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
  'README.md': '# Home\n\n{% include ".gitbook/includes/need-help.md" %}\n',
  'guide.md': '# Guide\n\nSteps.\n',
  '.gitbook/includes/need-help.md': NEED_HELP,
  '.gitbook/includes/plain.md': NO_TITLE,
}

describe('reusable contents', () => {
  it('are imported from .gitbook/includes/, served by the four operations as the spec says, and exported byte for byte', async () => {
    const spaceId = ((await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'Includes' } })).body as { id: string }).id
    const url = pathToFileURL(repositoryOf(TREE)).href
    expect((await t.api.call('importGitRepository', { params: { spaceId }, body: { url, ref: 'refs/heads/main' } })).status).toBe(204)
    const state = await settled(spaceId)
    expect(state.operation.state).toBe('success')
    expect(state.operation.notes).toEqual(['.gitbook/includes/plain.md: no title: front matter: imported with its file name as title'])

    const revisionId = ((await t.api.call('getSpaceById', { params: { spaceId } })).body as { revision: string }).revision
    const revision = (await t.api.call('getRevisionById', { params: { spaceId, revisionId } })).body as { reusableContents: Array<{ id: string; title: string; git: { oid: string; path: string } }> }
    expect(revision.reusableContents.map(({ title, git }) => ({ title, git }))).toEqual([
      { title: 'Need help?', git: { oid: gitBlobOid(NEED_HELP), path: '.gitbook/includes/need-help.md' } },
      { title: 'plain', git: { oid: gitBlobOid(NO_TITLE), path: '.gitbook/includes/plain.md' } },
    ])
    const [needHelp] = revision.reusableContents

    const current = await t.api.call('getReusableContentById', { params: { spaceId, reusableContentId: needHelp.id } })
    expect(current.status).toBe(200)
    expect(current.body).toEqual({ ...needHelp, document: gitBlobOid(NEED_HELP) })
    const inRevision = await t.api.call('getReusableContentInRevisionById', { params: { spaceId, revisionId, reusableContentId: needHelp.id } })
    expect(inRevision.body).toEqual(current.body)
    // metadata=false leaves out the Git Sync metadata, as for pages and files.
    const bare = await t.api.call('getReusableContentInRevisionById', { params: { spaceId, revisionId, reusableContentId: needHelp.id }, query: { metadata: false } })
    expect(bare.body).not.toHaveProperty('git')

    // A change request opened from main reads main's reusable contents.
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Edit' } })).body as { id: string }
    const inChangeRequest = await t.api.call('getReusableContentInChangeRequestById', { params: { spaceId, changeRequestId: cr.id, reusableContentId: needHelp.id } })
    expect(inChangeRequest.body).toEqual(current.body)

    // The document: the body after the front matter, the hint a hint block, the page link a page reference.
    const document = await t.api.call('getReusableContentDocumentInRevisionById', { params: { spaceId, revisionId, reusableContentId: needHelp.id } })
    expect(document.status).toBe(200)
    const body = document.body as { object: string; nodes: Array<{ type: string }> }
    expect(body.object).toBe('document')
    expect(body.nodes.map((n) => n.type)).toEqual(['hint'])
    const text = JSON.stringify(body)
    expect(text).toContain('"kind":"page"')
    expect(text).toContain('https://forum.example.com')
    expect(text).not.toContain('title:')

    // Unknown ids are 404s with the spec's error body.
    for (const [operationId, params] of [
      ['getReusableContentById', { spaceId, reusableContentId: 'nope' }],
      ['getReusableContentInRevisionById', { spaceId, revisionId, reusableContentId: 'nope' }],
      ['getReusableContentDocumentInRevisionById', { spaceId, revisionId, reusableContentId: 'nope' }],
      ['getReusableContentInChangeRequestById', { spaceId, changeRequestId: cr.id, reusableContentId: 'nope' }],
    ] as const) {
      const missing = await t.api.call(operationId, { params })
      expect(missing.status, operationId).toBe(404)
    }

    // A second import keeps the reusable content's id (pages include it by path, readers by id).
    const again = pathToFileURL(repositoryOf({ ...TREE, '.gitbook/includes/need-help.md': NEED_HELP.replace('Ask', 'Ask us') })).href
    await t.api.call('importGitRepository', { params: { spaceId }, body: { url: again, ref: 'refs/heads/main' } })
    expect((await settled(spaceId)).operation.state).toBe('success')
    const next = ((await t.api.call('getCurrentRevision', { params: { spaceId } })).body as typeof revision).reusableContents
    expect(next.map((c) => c.id)).toEqual(revision.reusableContents.map((c) => c.id))
    expect(next[0].git.oid).not.toBe(needHelp.git.oid)

    // Exported: the include files are written back as they came in.
    const target = repositoryOf({ 'LICENSE': 'MIT\n', '.gitbook/includes/stale.md': '---\ntitle: Gone\n---\n\nOld.\n' })
    git(target, 'config', 'receive.denyCurrentBranch', 'ignore')
    expect((await t.api.call('exportToGitRepository', { params: { spaceId }, body: { url: pathToFileURL(target).href, ref: 'refs/heads/main', commitMessage: 'Export' } })).status).toBe(204)
    expect((await settled(spaceId)).operation.state).toBe('success')
    expect(git(target, 'show', 'main:.gitbook/includes/need-help.md')).toBe(NEED_HELP.replace('Ask', 'Ask us'))
    expect(git(target, 'show', 'main:.gitbook/includes/plain.md')).toBe(NO_TITLE)
    expect(git(target, 'ls-tree', '-r', '--name-only', 'main').split('\n')).not.toContain('.gitbook/includes/stale.md')
    expect(git(target, 'show', 'main:LICENSE')).toBe('MIT\n')
  }, 120_000)
})
