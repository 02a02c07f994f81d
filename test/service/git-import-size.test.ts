import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiGateway } from '../../src/main/engine/gateway/api-gateway'
import { GitImportRefusedError, importGitTree } from '../../src/main/engine/import/git-import'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { commitDeclaredBlob } from '../support/big-repository'
import { serveGitOverHttp } from '../support/git-http'
import { commitTree, git } from '../support/gitsync-corpus'
import { startTestService, type TestService } from '../support/service'

/**
 * Git import of a tree over the service's limits (issue 26, "big trees"): refused within seconds, with
 * the tree's size and the limit, before the service fetches the repository when it is a file:// one.
 * A 2.5 GB repository used to be fetched whole first, past the client's 30 s request timeout.
 */
const made: string[] = []
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  made.push(dir)
  return dir
}

const docs = () =>
  new Map(
    Object.entries({
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
      'README.md': '# Home\n\nWelcome.\n',
      'guide.md': '# Guide\n\nRead on.\n',
    }).map(([rel, text]) => [rel, Buffer.from(text)]),
  )

async function serviceWithOrg(options: Parameters<typeof startTestService>[0] = {}) {
  const t = await startTestService(options)
  const orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
  const newSpace = async (title: string) => ((await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title } })).body as { id: string }).id
  return { t, newSpace }
}

/** The POST's status, message and how long it took; then the space's Git Sync state. */
async function importAndTime(t: TestService, spaceId: string, body: Record<string, unknown>) {
  const started = performance.now()
  const answer = await t.api.call('importGitRepository', { params: { spaceId }, body })
  const ms = Math.round(performance.now() - started)
  const info = (await t.api.call('getSpaceGitInfo', { params: { spaceId } })).body as { operation: { state: string; error?: string; commit?: string } }
  return { status: answer.status, message: (answer.body as { error?: { message: string } } | undefined)?.error?.message, ms, operation: info.operation }
}

describe('Git import of a tree over the limits', () => {
  let t: TestService
  let newSpace: (title: string) => Promise<string>
  beforeAll(async () => {
    ;({ t, newSpace } = await serviceWithOrg())
  })
  afterAll(() => t.close())

  it('a file:// repository holding 1.2 GB (the real 1 GiB limit) is refused from its object sizes within seconds, nothing of it fetched', async () => {
    const repo = commitTree(path.join(tempDir('quire-big-repo-'), 'docs'), docs())
    // The film's bytes are not in the repository (only its header is): fetching it would fail, so the refusal shows the service never read them.
    commitDeclaredBlob(repo, '.gitbook/assets/film.mp4', 1_200_000_000)
    const spaceId = await newSpace('Big')
    const revisionBefore = (await t.api.call('getSpaceById', { params: { spaceId } })).body.revision
    const result = await importAndTime(t, spaceId, { url: pathToFileURL(repo).href, ref: 'refs/heads/main' })
    console.log(`1.2 GB tree refused in ${result.ms} ms: ${result.message}`)
    expect(result.status, result.message).toBe(400)
    const docsBytes = [...docs().values()].reduce((sum, b) => sum + b.length, 0)
    expect(result.message).toBe(`the tree holds ${1_200_000_000 + docsBytes} bytes (1.12 GiB) in 4 files, over the 1073741824-byte (1.00 GiB) limit of this service's Git import`)
    // Generous for a loaded machine: the fetch it replaces took over a minute on a 2.5 GB repository.
    expect(result.ms).toBeLessThan(10_000)
    expect(result.operation).toMatchObject({ state: 'failure', error: result.message })
    expect(result.operation.commit).toBeUndefined()
    expect((await t.api.call('getSpaceById', { params: { spaceId } })).body.revision).toBe(revisionBefore)
  })
})

describe('Git import with the limits lowered (gitTreeLimits), so that small repositories pass them', () => {
  let t: TestService
  let newSpace: (title: string) => Promise<string>
  beforeAll(async () => {
    ;({ t, newSpace } = await serviceWithOrg({ gitTreeLimits: { maxBytes: 4096, maxFiles: 10 } }))
  })
  afterAll(() => t.close())

  it('over the bytes or the files, refused with the size and the limit; what lies outside the project directory does not count', async () => {
    const repo = path.join(tempDir('quire-limits-'), 'repo')
    const files = new Map<string, Buffer>()
    for (const [rel, bytes] of docs()) {
      files.set(`big/${rel}`, bytes)
      files.set(`small/${rel}`, bytes)
    }
    files.set('big/.gitbook/assets/diagram.png', Buffer.alloc(6000, 1))
    files.set('small/.gitbook/assets/pixel.png', Buffer.alloc(100, 2))
    files.set('many/SUMMARY.md', Buffer.from('# Table of contents\n\n* [Note](n0.md)\n'))
    for (let i = 0; i < 12; i++) files.set(`many/n${i}.md`, Buffer.from(`# Note ${i}\n`))
    commitTree(repo, files)
    const url = pathToFileURL(repo).href

    const bytes = await importAndTime(t, await newSpace('Bytes'), { url, ref: 'refs/heads/main', repoProjectDirectory: 'big' })
    expect(bytes.status, bytes.message).toBe(400)
    expect(bytes.message).toMatch(/^the tree holds \d+ bytes \(\d+\.\d KiB\) in 4 files, over the 4096-byte \(4\.0 KiB\) limit of this service's Git import$/)
    expect(bytes.operation).toMatchObject({ state: 'failure', error: bytes.message })

    const count = await importAndTime(t, await newSpace('Files'), { url, ref: 'refs/heads/main', repoProjectDirectory: 'many' })
    expect(count.status, count.message).toBe(400)
    expect(count.message).toBe("the tree has 13 files, over the 10 files this service's Git import reads")

    // The project directory alone is under both limits: the diagram and the notes beside it are not its.
    const small = await importAndTime(t, await newSpace('Small'), { url, ref: 'refs/heads/main', repoProjectDirectory: 'small' })
    expect(small.status, small.message).toBe(204)
    console.log(`refusals in ${bytes.ms} and ${count.ms} ms`)
  })

  it('over loopback http:// (no repository to read in place): measured once fetched, refused with the same reason', async () => {
    const repo = commitTree(path.join(tempDir('quire-limits-http-'), 'repo'), docs().set('.gitbook/assets/diagram.png', Buffer.alloc(6000, 1)))
    const served = await serveGitOverHttp(path.dirname(repo))
    try {
      const result = await importAndTime(t, await newSpace('Over HTTP'), { url: `${served.origin}/repo/.git`, ref: 'refs/heads/main' })
      expect(result.status, result.message).toBe(400)
      expect(result.message).toMatch(/^the tree holds \d+ bytes \(.*\) in 4 files, over the 4096-byte \(4\.0 KiB\) limit of this service's Git import$/)
      // Fetched before it was measured: the operation knows the commit.
      expect(result.operation.commit).toBe(git(repo, 'rev-parse', 'HEAD').toString().trim())
    } finally {
      await served.close()
    }
  })

  it("the Git import request's answer lost (a timeout, as a request that outlasted the client's 30 s): the client reads the outcome from git/info", async () => {
    // The service acts on the request; its answer never reaches the client.
    const answerLost: typeof fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
      if ((init?.method ?? 'GET').toUpperCase() !== 'POST' || !url.endsWith('/git/import')) return fetch(input, init)
      await (await fetch(input, init)).arrayBuffer()
      throw new DOMException('The operation was aborted due to timeout', 'TimeoutError')
    }
    const gateway = new ApiGateway({ endpoint: t.service.origin, token: t.service.token, fetch: answerLost })
    const big = commitTree(path.join(tempDir('quire-lost-big-'), 'repo'), docs().set('.gitbook/assets/diagram.png', Buffer.alloc(6000, 1)))
    const refused = importGitTree(gateway, { spaceId: await newSpace('Lost big'), folder: big })
    await expect(refused).rejects.toThrow(GitImportRefusedError)
    await expect(refused).rejects.toThrow(/^the Git import failed: the tree holds \d+ bytes .* over the 4096-byte \(4\.0 KiB\) limit of this service's Git import$/)

    const small = commitTree(path.join(tempDir('quire-lost-small-'), 'repo'), docs())
    const spaceId = await newSpace('Lost small')
    const imported = await importGitTree(gateway, { spaceId, folder: small })
    expect(imported).toMatchObject({ status: 'imported', revisionId: (await t.api.call('getSpaceById', { params: { spaceId } })).body.revision })
  })
})
