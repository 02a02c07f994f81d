import type { ChangeRequest } from '@gitbook/api'
import { afterEach, expect } from 'vitest'
import type { ApiClient, TestService } from '../../../support/service'
import { removeWorkstation } from './hooks'
import { pageIdAt, seedSpace, tempDir, Workstation, type SeededSpace } from './workspace'

/** The page two writers edit in these tests. */
export const INSTALL_PAGE = 'guide/install.md'

/** guide/install.md as `count` paragraphs, each "as first written" unless `changes` rewrites it (by number, from 1). */
export const paragraphs = (changes: Record<number, string> = {}, count = 7): string =>
  `# Install\n\n${Array.from({ length: count }, (_, i) => changes[i + 1] ?? `Paragraph ${i + 1} as first written.`).join('\n\n')}\n`

/** Someone else's edit: `changes` merged into main of the space through a change request of their own. */
export async function mergeOnMain(api: ApiClient, spaceId: string, changes: unknown[], subject = 'Someone else'): Promise<void> {
  const cr = (await api.call('createChangeRequest', { params: { spaceId }, body: { subject } })).body as ChangeRequest
  await api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  expect((await api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')
}

export async function mainMarkdown(api: ApiClient, spaceId: string, pageId: string): Promise<string> {
  return (await api.call('getPageById', { params: { spaceId, pageId }, query: { format: 'markdown' } })).body.markdown
}

export async function changeRequestMarkdown(api: ApiClient, spaceId: string, changeRequestId: string, pageId: string): Promise<string> {
  return (await api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId, pageId }, query: { format: 'markdown' } })).body.markdown
}

export interface TwoWriters {
  a: Workstation
  b: Workstation
  seeded: SeededSpace
  spaceId: string
  /** The id of guide/install.md. */
  install: string
}

/**
 * Two writers per test, on the service `t` of the file: `twoWriters()` seeds a new space whose
 * guide/install.md has seven paragraphs on main, and gives writers A and B, each in their own folder,
 * both pulled. Their folders (and those of `keep`) are removed after each test.
 */
export function twoWritersPerTest(t: TestService) {
  let stations: Workstation[] = []
  afterEach(() => {
    for (const ws of stations) removeWorkstation(ws)
    stations = []
  })
  return {
    async twoWriters(): Promise<TwoWriters> {
      const seeded = await seedSpace(t)
      const install = await pageIdAt(t.api, seeded.spaceId, INSTALL_PAGE)
      await mergeOnMain(t.api, seeded.spaceId, [{ operation: 'update_page', page: install, document: { markdown: paragraphs() } }], 'Setup')
      const a = new Workstation(t, seeded, tempDir('quire-a-'))
      const b = new Workstation(t, seeded, tempDir('quire-b-'))
      stations = [a, b]
      await a.pull()
      await b.pull()
      return { a, b, seeded, spaceId: seeded.spaceId, install }
    },
    /** Another workstation of the test's, removed after it like A's and B's. */
    keep(ws: Workstation): Workstation {
      stations.push(ws)
      return ws
    },
  }
}

/** Paragraph 1 as A rewrites it in aMergesParagraphOne. */
export const A1 = 'Paragraph 1 as A rewrote it.'

/** A rewrites paragraph 1 (as `A1`), pushes, and merges A's change request. */
export async function aMergesParagraphOne(a: Workstation): Promise<void> {
  a.write(INSTALL_PAGE, paragraphs({ 1: A1 }))
  await a.push()
  expect(await a.pusher.merge(a.outbox.session(a.seeded.spaceId)!.changeRequestId!)).toMatchObject({ result: 'merge' })
}
