import { afterEach, describe, expect, it } from 'vitest'
import type { SyncProgressEvent } from '../../src/main/engine/sync/sync-engine'
import { startSyncHarness, type SyncHarness } from './support/sync-harness'

/**
 * Issue 31: a pass syncs spaces a few at a time. Shown by what happens, not by how long it takes: one
 * space's first request is held until every other space of the pass has finished, which only a pass
 * that does not wait for that space can reach (one after another, the hold would last until its
 * fallback, long after: the test then fails on who released it).
 */

let h: SyncHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** How long the held request waits for the other spaces before it is let go anyway (a pass one space at a time). */
const FALLBACK_MS = 8000

/** A fetch that holds the first request of `spaceId` until `release` is called (or the fallback). */
function holdFirstRequestOf(spaceId: string) {
  let release!: (by: string) => void
  const released = new Promise<string>((resolve) => (release = resolve))
  const fallback = setTimeout(() => release('fallback'), FALLBACK_MS)
  let held = false
  const fetchImpl: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    if (!held && url.pathname.startsWith(`/v1/spaces/${spaceId}/`)) {
      held = true
      await released
    }
    return fetch(input, init)
  }
  return { fetchImpl, release: (by: string) => release(by), released, done: () => clearTimeout(fallback) }
}

async function demoOrganization(harness: SyncHarness) {
  const orgs = (await harness.t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }
  const orgId = orgs.items[0].id
  harness.cache.setSelection({})
  await harness.engine().discover()
  harness.cache.setSelection({ organizations: [orgId] })
  return harness.cache.selectedSpaces()
}

describe('sync down: spaces in parallel', () => {
  it('one slow space does not hold the others: they finish while its first request waits; the report keeps selection order', async () => {
    h = await startSyncHarness()
    const spaces = await demoOrganization(h)
    expect(spaces.length).toBeGreaterThanOrEqual(3)
    const slow = spaces[0]
    const others = new Set(spaces.slice(1).map((s) => s.id))
    const hold = holdFirstRequestOf(slow.id)
    const events: SyncProgressEvent[] = []
    const engine = h.engine(
      {
        onProgress: (event) => {
          events.push(event)
          if (event.type === 'space-finished' && others.delete(event.spaceId) && others.size === 0) hold.release('the other spaces finished')
        },
      },
      { fetch: hold.fetchImpl },
    )
    const report = await engine.pass().finally(hold.done)
    expect(await hold.released).toBe('the other spaces finished')
    expect(report.inSync).toBe(true)
    expect(report.spaces.map((s) => s.spaceId)).toEqual(spaces.map((s) => s.id))
    // Every space's events in their own order, the slow one's last to finish.
    for (const space of spaces) {
      const own = events.filter((e) => e.spaceId === space.id).map((e) => e.type)
      expect(own[0]).toBe('space-started')
      expect(own.at(-1)).toBe('space-finished')
      expect(own.filter((t) => t === 'space-finished')).toHaveLength(1)
    }
    expect(events.filter((e) => e.type === 'space-finished').at(-1)?.spaceId).toBe(slow.id)
    for (const space of spaces) expect(h.cache.space(space.id)?.state).toBe('synced')
  }, 30_000)

  it("a space's failure is its own: the others sync in the same pass", async () => {
    h = await startSyncHarness()
    const spaces = await demoOrganization(h)
    const broken = spaces[1]
    const failing: typeof fetch = async (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
      if (url.pathname.startsWith(`/v1/spaces/${broken.id}/`)) return Response.json({ error: { code: 403, message: 'not for you' } }, { status: 403 })
      return fetch(input, init)
    }
    const report = await h.engine({}, { fetch: failing }).pass()
    expect(report.spaces.map((s) => [s.spaceId, s.state])).toEqual(spaces.map((s) => [s.id, s.id === broken.id ? 'error' : 'synced']))
    expect(h.cache.space(broken.id)?.state).toBe('error')
  }, 30_000)

  it('stopping starts no more spaces: those running finish, the rest wait for the next pass', async () => {
    h = await startSyncHarness()
    const spaces = await demoOrganization(h)
    let stop = false
    const started: string[] = []
    const report = await h
      .engine({
        spaceConcurrency: 1,
        shouldStop: () => stop,
        onProgress: (event) => {
          if (event.type === 'space-started') started.push(event.spaceId)
          if (event.type === 'space-finished') stop = true
        },
      })
      .pass()
    expect(started).toEqual([spaces[0].id])
    expect(report.spaces.map((s) => s.spaceId)).toEqual([spaces[0].id])
    expect(report.inSync).toBe(false)
    // The next pass syncs them all.
    expect((await h.engine().pass()).inSync).toBe(true)
  }, 30_000)
})
