/**
 * File bytes go to disk as they arrive (issue 16: a space's files are most of what a first mirror moves,
 * and each was held whole, several times over): the temp file grows while the body is still coming; a
 * body cut mid-way is fetched again and the file comes out whole; bytes that do not hash to the file's
 * oid replace nothing and leave nothing behind.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { TEMP_MARK } from '../../src/main/engine/workspace/atomic-write'
import { listFiles, startSyncHarness, type SyncHarness } from './support/sync-harness'
import { until } from '../support/until'

let h: SyncHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

async function userGuide(harness: SyncHarness) {
  const orgs = (await harness.t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }
  const list = (await harness.t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgs.items[0].id } })).body as { items: Array<{ id: string; title: string }> }
  const space = list.items.find((s) => s.title === 'User Guide')!
  await harness.engine().resolveSpaces([space.id])
  harness.cache.setSelection({ spaces: [space.id] })
  return space
}

const urlOf = (input: RequestInfo | URL) => new URL(input instanceof Request ? input.url : String(input))

/** The download's bytes again as a stream of two parts, the second given by `second` when it resolves (or an error). */
function splitAnswer(response: Response, bytes: Uint8Array, second: () => Promise<'rest' | Error>): Response {
  const half = bytes.byteLength >> 1
  let sent = false
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!sent) {
        sent = true
        controller.enqueue(bytes.slice(0, half))
        return
      }
      const next = await second()
      if (next instanceof Error) controller.error(next)
      else {
        controller.enqueue(bytes.slice(half))
        controller.close()
      }
    },
  })
  return new Response(body, { status: response.status, headers: response.headers })
}

const assets = () => path.join(h!.workspace, 'Quire Demo', 'User Guide', '.gitbook', 'assets')

describe('sync down: file bytes', () => {
  it('are written to disk while the body is still arriving', async () => {
    h = await startSyncHarness()
    await userGuide(h)
    let streamed: string | undefined
    const fetchSlowly: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const url = urlOf(input)
      if (!url.pathname.startsWith('/files/') || streamed !== undefined) return response
      streamed = decodeURIComponent(url.pathname.split('/').pop()!)
      const bytes = new Uint8Array(await response.arrayBuffer())
      // The rest comes only once the first half is in a temp file beside the file (a client that holds the
      // whole body before writing waits here for ever: the pass fails).
      return splitAnswer(response, bytes, async () => {
        try {
          await until(() => (fs.existsSync(assets()) ? fs.readdirSync(assets()).find((n) => n.startsWith(TEMP_MARK) && fs.statSync(path.join(assets(), n)).size === bytes.byteLength >> 1) : undefined), 'the first half on disk', 10_000)
          return 'rest'
        } catch (error) {
          return error as Error
        }
      })
    }
    const pass = await h.engine({}, { fetch: fetchSlowly, maxAttempts: 1 }).pass()
    expect(streamed).toBeDefined()
    expect(pass.inSync).toBe(true)
    const space = pass.spaces[0].spaceId
    for (const j of h.cache.journal(space).filter((e) => e.kind === 'file')) {
      expect(gitBlobOid(fs.readFileSync(path.join(h.workspace, 'Quire Demo', 'User Guide', j.path)))).toBe(j.oid)
    }
  })

  it('cut off mid-way are fetched again and come out whole, no temp file left', async () => {
    h = await startSyncHarness()
    await userGuide(h)
    const cut = new Map<string, number>()
    const downloads: string[] = []
    const fetchCutting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const url = urlOf(input)
      if (url.pathname.startsWith('/files/')) downloads.push(url.pathname)
      if (!url.pathname.startsWith('/files/') || cut.has(url.pathname)) return response
      cut.set(url.pathname, 1)
      const bytes = new Uint8Array(await response.arrayBuffer())
      return splitAnswer(response, bytes, async () => new TypeError('terminated'))
    }
    expect((await h.engine({}, { fetch: fetchCutting }).pass()).inSync).toBe(true)
    expect(cut.size).toBeGreaterThan(0)
    // Each file twice: the cut answer, then the whole one.
    expect(downloads).toHaveLength(cut.size * 2)
    const root = path.join(h.workspace, 'Quire Demo', 'User Guide')
    expect(listFiles(root).filter((f) => path.basename(f).startsWith(TEMP_MARK))).toEqual([])
    for (const j of h.cache.journal((await userGuide(h)).id).filter((e) => e.kind === 'file')) {
      expect(gitBlobOid(fs.readFileSync(path.join(root, j.path)))).toBe(j.oid)
    }
  })

  it('that do not hash to the oid replace nothing and leave nothing behind', async () => {
    h = await startSyncHarness()
    const space = await userGuide(h)
    let forged: string | undefined
    const fetchForging: typeof fetch = async (input, init) => {
      const response = await fetch(input, init)
      const url = urlOf(input)
      if (!url.pathname.startsWith('/files/') || forged !== undefined) return response
      forged = decodeURIComponent(url.pathname.split('/').pop()!)
      const bytes = new Uint8Array(await response.arrayBuffer()).map((b) => b ^ 0xff)
      return new Response(bytes, { status: 200, headers: response.headers })
    }
    const pass = await h.engine({}, { fetch: fetchForging }).pass()
    expect(pass.inSync).toBe(false)
    expect(JSON.stringify(h.cache.space(space.id))).toContain('does not match its oid')
    const root = path.join(h.workspace, 'Quire Demo', 'User Guide')
    const files = listFiles(root)
    expect(files.some((f) => path.basename(f) === forged)).toBe(false)
    expect(files.filter((f) => path.basename(f).startsWith(TEMP_MARK))).toEqual([])
    // The next pass, with honest bytes, puts it in place.
    expect((await h.engine().pass()).inSync).toBe(true)
    expect(listFiles(root).some((f) => path.basename(f) === forged)).toBe(true)
  })
})
