import net from 'node:net'
import type { ChangeRequest } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { describeSyncUp, syncUpStatus } from '../../../src/main/engine/push/sync-up-status'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { changeRequestRevision, mainRevision, openChangeRequests, pagesOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * The outbox decides that a content batch arrived only from evidence of its own content in the change
 * request, never from the change request's head having moved; a refused connection or an answer cut
 * mid-read is tried again, never taken for a refusal (issue 9, findings 1 and 4).
 */

const t = serviceForFile()

/** How the network between the writer and the service behaves for the next content write. */
type Mode = 'through' | 'refused' | 'reset-before' | 'cut-after'

class Network {
  mode: Mode = 'through'
  contentPosts = 0
  constructor(private readonly closedPort: number) {}

  fetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const method = (init?.method ?? 'GET').toUpperCase()
    const isContentWrite = method === 'POST' && /\/change-requests\/[^/]+\/content/.test(url)
    if (this.mode === 'refused') {
      // A real refused connection: the same request to a port nobody listens on.
      const closed = new URL(url)
      closed.port = String(this.closedPort)
      return fetch(closed, init)
    }
    if (!isContentWrite) return fetch(input, init)
    this.contentPosts++
    if (this.mode === 'reset-before') {
      // The connection dropped on the way: the client cannot tell whether the service got the request.
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) })
    }
    const response = await fetch(input, init)
    if (this.mode !== 'cut-after') return response
    // The service acted and answered; the answer is cut after its first bytes.
    const bytes = new Uint8Array(await response.arrayBuffer())
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 10))
        controller.error(new TypeError('terminated'))
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
}

async function closedPort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as net.AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})

async function setUp() {
  const network = new Network(await closedPort())
  ws = new Workstation(t, await seedSpace(t), tempDir(), { gateway: { fetch: network.fetch } })
  await ws.pull()
  return { ws, network, spaceId: ws.seeded.spaceId }
}

const pageId = async (spaceId: string, path: string) => [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === path)![0]

async function crMarkdown(spaceId: string, changeRequestId: string, pageId: string): Promise<string> {
  const page = await t.api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId, pageId }, query: { format: 'markdown' } })
  return page.body.markdown
}

/** Someone else edits another page inside the writer's change request: its head moves. */
async function collaboratorEdit(spaceId: string, cr: ChangeRequest, page: string) {
  const answer = await t.api.call('updateChangeRequestContent', {
    params: { spaceId, changeRequestId: cr.id },
    body: { changes: [{ operation: 'update_page', page, document: { markdown: '# FAQ\n\nA reviewer added this.\n' } }] },
  })
  expect(answer.status).toBe(200)
}

describe('an op is delivered only on evidence of its own content', () => {
  it('an edit sent while the service refused connections is sent once it is back, though the change request head moved meanwhile', async () => {
    const { ws, network, spaceId } = await setUp()
    ws.write('guide/install.md', '# Install\n\nFirst edit.\n')
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId)

    network.mode = 'refused'
    ws.write('guide/install.md', '# Install\n\nSecond edit, made offline.\n')
    const offline = await ws.push()
    expect(offline.stopped?.reason).toBe('offline')
    // Nothing can have left: the op is to be sent as new, not reconciled.
    expect(ws.outbox.unfinished(spaceId).map((op) => op.state)).toEqual(['pending'])

    network.mode = 'through'
    await collaboratorEdit(spaceId, cr, await pageId(spaceId, 'faq.md'))
    const back = await ws.push()
    expect(back.failures).toEqual([])
    expect(ws.outbox.unfinished(spaceId)).toEqual([])
    expect(await crMarkdown(spaceId, cr.id, await pageId(spaceId, 'guide/install.md'))).toBe('# Install\n\nSecond edit, made offline.\n')
    // The reviewer's edit inside the change request is still there too.
    expect(await crMarkdown(spaceId, cr.id, await pageId(spaceId, 'faq.md'))).toBe('# FAQ\n\nA reviewer added this.\n')
  })

  it('an edit whose request may or may not have arrived is reconciled from its content, not from the head having moved', async () => {
    const { ws, network, spaceId } = await setUp()
    ws.write('guide/install.md', '# Install\n\nFirst edit.\n')
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId)

    network.mode = 'reset-before'
    ws.write('guide/install.md', '# Install\n\nSecond edit, lost on the way.\n')
    const cut = await ws.push()
    expect(cut.stopped?.reason).toBe('offline')
    expect(ws.outbox.unfinished(spaceId).map((op) => op.state)).toEqual(['sending'])

    network.mode = 'through'
    await collaboratorEdit(spaceId, cr, await pageId(spaceId, 'faq.md'))
    await ws.push()
    expect(ws.outbox.unfinished(spaceId)).toEqual([])
    expect(await crMarkdown(spaceId, cr.id, await pageId(spaceId, 'guide/install.md'))).toBe('# Install\n\nSecond edit, lost on the way.\n')
  })

  it('an answer cut mid-read is an unknown outcome: reconciled as arrived, never refused, never sent twice', async () => {
    const { ws, network, spaceId } = await setUp()
    ws.write('guide/install.md', '# Install\n\nFirst edit.\n')
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId)

    network.mode = 'cut-after'
    network.contentPosts = 0
    ws.write('notes.md', '# Notes\n\nA new page.\n')
    ws.write('guide/install.md', '# Install\n\nSecond edit.\n')
    const cut = await ws.push()
    expect(cut.failures).toEqual([])
    expect(ws.outbox.failures(spaceId)).toEqual([])
    // The new subject waits behind the content (it is sent after it: the edit first).
    expect(ws.outbox.unfinished(spaceId).map((op) => `${op.kind}: ${op.state}`)).toEqual(['content: sending', 'update-cr: pending'])

    network.mode = 'through'
    await collaboratorEdit(spaceId, cr, await pageId(spaceId, 'faq.md'))
    const after = await ws.push()
    expect(after.failures).toEqual([])
    expect(ws.outbox.unfinished(spaceId)).toEqual([])
    expect(network.contentPosts).toBe(1)
    const pages = [...pagesOf(await changeRequestRevision(t.api, spaceId, cr.id)).values()]
    expect(pages.filter((p) => p.title === 'Notes')).toHaveLength(1)
    expect(await crMarkdown(spaceId, cr.id, await pageId(spaceId, 'guide/install.md'))).toBe('# Install\n\nSecond edit.\n')
    // The new page is known by its id: a later edit of it updates it rather than inserting it again.
    ws.write('notes.md', '# Notes\n\nA new page, edited.\n')
    await ws.push()
    const again = [...pagesOf(await changeRequestRevision(t.api, spaceId, cr.id)).values()].filter((p) => p.title === 'Notes')
    expect(again).toHaveLength(1)
  })

  it('a batch found sending whose change request moved for other reasons is sent again, exactly once', async () => {
    const { ws, network, spaceId } = await setUp()
    ws.write('guide/install.md', '# Install\n\nFirst edit.\n')
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId)

    network.mode = 'reset-before'
    ws.write('notes.md', '# Notes\n\nA page that never left.\n')
    await ws.push()
    network.mode = 'through'
    await collaboratorEdit(spaceId, cr, await pageId(spaceId, 'faq.md'))
    network.contentPosts = 0
    await ws.push()
    await ws.push()
    expect(network.contentPosts).toBe(1)
    const pages = [...pagesOf(await changeRequestRevision(t.api, spaceId, cr.id)).values()]
    expect(pages.filter((p) => p.title === 'Notes')).toHaveLength(1)
  })

  it('a change the service refuses is shown with its file, never parked silently', async () => {
    const { ws, spaceId } = await setUp()
    ws.write('guide/install.md', '---\ndescription: [never closed\n---\n\n# Install\n\nBroken front matter.\n')
    ws.write('faq.md', '# FAQ\n\nA good edit beside it.\n')
    const pushed = await ws.push()
    expect(pushed.failures.join('\n')).toContain('guide/install.md')
    const status = syncUpStatus(ws.outbox, spaceId)
    expect(status.refused.flatMap((r) => r.files)).toContain('guide/install.md')
    expect(describeSyncUp(status).join('\n')).toMatch(/refused content of guide\/install\.md: HTTP 400/)
    // The good change beside it went through.
    const [cr] = await openChangeRequests(t.api, spaceId)
    expect(await crMarkdown(spaceId, cr.id, await pageId(spaceId, 'faq.md'))).toBe('# FAQ\n\nA good edit beside it.\n')
  })
})
