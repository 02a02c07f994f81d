/**
 * The end-to-end flows against the hosted profile of the service (issue 26): trees without page markdown
 * (pages read one by one), file bytes from a file host on an origin of its own, a rate limit a first
 * mirror runs into (429s with Retry-After, waited out), and a latency on every request. A representative
 * set, once each, rather than every e2e suite twice: through the CLI (`quire sync`, `quire watch`), the
 * app's backend, and the engine's lost-cache recovery, which must read the pages it compares one by one.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsersRepository } from '../../src/main/service/store/users'
import { startTestService, type TestService } from '../support/service'
import { UncheckedApiClient } from '../engine/sync-up/support/restartable-service'
import { AppWorkstation } from '../engine/sync-up/support/app-workstation'
import { changeRequestRevision, FolderFiles, mainRevision, openChangeRequests, pagesOf, PNG, remoteOf, SEED_PAGES, seedSpace, tempDir, Workstation, type SeededSpace } from '../engine/sync-up/support/workspace'
import { loginTo, quire, quireHomeForFile } from './support/cli-home'

/** Low enough that a first mirror meets it (the client's own pace is 50 requests a second). */
const RATE = { rateLimitPerMinute: 10, rateLimitWindowMs: 1000 }
const LATENCY_MS = 10

/**
 * The service as the writer's Quire signs in to it (`service.token`), and the test's own calls on a token
 * of their own (`api`): the rate limit is per token, and the test's seeding must not spend the writer's.
 */
let t: TestService
const home = quireHomeForFile('quire-hosted-')
const dirs: string[] = []
let seeded: SeededSpace
let folder: string

beforeAll(async () => {
  const started = await startTestService({ profile: 'hosted', latencyMs: LATENCY_MS, ...RATE })
  const testToken = started.service.store.repo(UsersRepository).issueToken(started.service.ownerId)
  t = { ...started, api: new UncheckedApiClient(started.api.baseUrl, testToken) }
})
afterAll(async () => {
  await t.close()
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

function dir(prefix: string) {
  const made = tempDir(prefix)
  dirs.push(made)
  return made
}

const pageIdAt = async (spaceId: string, gitPath: string) => [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === gitPath)![0]

async function changeRequestPages(spaceId: string) {
  const [cr] = await openChangeRequests(t.api, spaceId)
  return { crId: cr.id, pages: pagesOf(await changeRequestRevision(t.api, spaceId, cr.id)) }
}

async function markdownIn(spaceId: string, crId: string, pageId: string): Promise<string> {
  return (await t.api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId: crId, pageId }, query: { format: 'markdown' } })).body.markdown as string
}

describe('quire sync and watch against the hosted profile', () => {
  it('first mirror: every page read one by one, the logo from the file host, the rate limit met and waited out', { timeout: 120_000 }, async () => {
    seeded = await seedSpace(t)
    await loginTo(t)
    // The writer's window spent just before the mirror (by this test, as another of their tools would):
    // the mirror's first requests meet 429s and wait them out, whatever the machine's speed.
    const refusedBefore = t.service.rateLimited()
    while (t.service.rateLimited() === refusedBefore) await (await fetch(`${t.service.baseUrl}/user`, { headers: { Authorization: `Bearer ${t.service.token}` } })).arrayBuffer()
    const refusedSpending = t.service.rateLimited()
    const sync = await quire('sync', '--once', '--space', seeded.spaceId, '--workspace', path.join(home, 'ws'))
    expect(sync.code, sync.err).toBe(0)
    folder = path.join(home, 'ws', 'Acme', 'Docs')
    for (const [file, text] of [['faq.md', SEED_PAGES.faq], ['guide/install.md', SEED_PAGES.install], ['README.md', SEED_PAGES.home]] as const) expect(fs.readFileSync(path.join(folder, file), 'utf8')).toBe(text)
    expect(fs.readFileSync(path.join(folder, '.gitbook', 'assets', 'logo.png')).equals(PNG)).toBe(true)
    expect(t.service.rateLimited() - refusedSpending, 'requests of the mirror answered 429').toBeGreaterThan(0)
  })

  it('a remote edit comes down', { timeout: 60_000 }, async () => {
    const faq = await pageIdAt(seeded.spaceId, 'faq.md')
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Remote' } })).body
    await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id }, body: { changes: [{ operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nQuestions, edited online.\n' } }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')
    const sync = await quire('sync', '--once')
    expect(sync.code, sync.err).toBe(0)
    expect(fs.readFileSync(path.join(folder, 'faq.md'), 'utf8')).toBe('# FAQ\n\nQuestions, edited online.\n')
  })

  it('a local edit with a comment marker goes up to a change request; a rename follows as a rename', { timeout: 90_000 }, async () => {
    fs.writeFileSync(path.join(folder, 'faq.md'), '# FAQ\n\nQuestions, edited online.\n\nAnd here.\n\n<!-- comment: Is this complete? -->\n')
    const watched = await quire('watch', '--once')
    expect(watched.code, watched.err).toBe(0)
    expect(watched.out).toMatch(/Docs: 1 change queued \(change request #\d+\)/)
    expect(fs.readFileSync(path.join(folder, 'faq.md'), 'utf8')).toBe('# FAQ\n\nQuestions, edited online.\n\nAnd here.\n')
    const listed = JSON.parse((await quire('comments', path.join(folder, 'faq.md'), '--json')).out).threads as Array<{ markdown: string }>
    expect(listed.map((th) => th.markdown)).toEqual(['Is this complete?'])

    const install = await pageIdAt(seeded.spaceId, 'guide/install.md')
    fs.renameSync(path.join(folder, 'guide', 'install.md'), path.join(folder, 'installing.md'))
    const renamed = await quire('watch', '--once')
    expect(renamed.code, renamed.err).toBe(0)
    const { crId, pages } = await changeRequestPages(seeded.spaceId)
    expect(pages.get(install)?.path).toBe('installing.md')
    expect(pages.size).toBe(pagesOf(await mainRevision(t.api, seeded.spaceId)).size)
    expect(await markdownIn(seeded.spaceId, crId, await pageIdAt(seeded.spaceId, 'faq.md'))).toContain('And here.')
  })
})

describe("the app's backend and recovery against the hosted profile", () => {
  it("the app's backend mirrors the space (the logo from the file host) and sends an edit", { timeout: 90_000 }, async () => {
    const space = await seedSpace(t)
    const app = await AppWorkstation.open(remoteOf(t), space, dir('quire-hosted-app-'), { maxAttempts: 2, timeoutMs: 10_000 }, (work) => work())
    try {
      await app.pull()
      expect(app.read('guide/configure.md')).toBe(SEED_PAGES.configure)
      expect(fs.readFileSync(app.file('.gitbook/assets/logo.png')).equals(PNG)).toBe(true)
      app.write('faq.md', '# FAQ\n\nQuestions.\n\nFrom the app.\n')
      expect((await app.push()).sent).toBeGreaterThan(0)
      const { crId } = await changeRequestPages(space.spaceId)
      expect(await markdownIn(space.spaceId, crId, await pageIdAt(space.spaceId, 'faq.md'))).toContain('From the app.')
    } finally {
      await app.close()
    }
  })

  it('a first sync into a folder holding the files, one moved and edited: recovered as that page, its text read one by one', { timeout: 90_000 }, async () => {
    const space = await seedSpace(t)
    const source = new Workstation(t, space, dir('quire-hosted-clone-'))
    await source.pull()
    source.close()
    const main = pagesOf(await mainRevision(t.api, space.spaceId))
    const configureId = [...main].find(([, p]) => p.path === 'guide/configure.md')![0]
    const files = new FolderFiles(path.join(dir('quire-hosted-first-'), 'workspace', 'Acme', 'Docs'))
    fs.cpSync(source.folder, files.folder, { recursive: true })
    const configure = files.read('guide/configure.md')
    fs.rmSync(files.file('guide/configure.md'))
    files.write('setup.md', `${configure}\nOne more line of setup.\n`)

    const ws = new Workstation(t, space, path.dirname(path.dirname(path.dirname(files.folder))))
    try {
      await ws.pull()
      expect(fs.existsSync(ws.file('guide/configure.md')), 'the moved page is not written back at its old place').toBe(false)
      await ws.push()
      const { crId, pages } = await changeRequestPages(space.spaceId)
      expect(pages.size).toBe(main.size) // nothing inserted, nothing deleted
      expect(await markdownIn(space.spaceId, crId, configureId)).toContain('One more line of setup.')
    } finally {
      ws.close()
    }
  })
})
