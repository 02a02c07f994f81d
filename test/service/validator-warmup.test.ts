/**
 * The first request of a kind must not compile its validator (issue 16): ajv took 0.1-0.9 s over the
 * first content batch, the first space update..., during which every other request waited. The service
 * compiles every routed operation's request validators at start-up (in a worker, loaded one module a turn:
 * validator-offthread.test.ts), and validation stays as strict: a bad body is still refused with the
 * validator's message.
 */
import type { ValidateFunction } from 'ajv'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { allRoutes } from '../../src/main/service/api'
import { HttpService } from '../../src/main/service/http/server'
import { SpecRegistry } from '../../src/main/service/spec/openapi-spec'
import { openServiceDatabase } from '../../src/main/service/store/database'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { ServiceStore } from '../../src/main/service/store/service-store'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { UsersRepository } from '../../src/main/service/store/users'

interface Started {
  http: HttpService
  store: ServiceStore
  spec: SpecRegistry
  baseUrl: string
  token: string
  spaceId: string
}

async function start(warmValidators: boolean): Promise<Started> {
  const store = new ServiceStore(openServiceDatabase(':memory:'))
  const users = store.repo(UsersRepository)
  const owner = users.create({ displayName: 'Owner', email: 'owner@example.com' })
  const token = users.issueToken(owner.id)
  const org = store.repo(OrganizationsRepository).create({ title: 'Org', owner: owner.id })
  const spaceId = store.repo(SpacesRepository).create({ orgId: org.id, title: 'Space' }).id
  // A registry of its own: the process's shared one may have compiled validators for other tests.
  const spec = new SpecRegistry()
  const http = new HttpService({ store, routes: allRoutes, spec, warmValidators })
  const origin = await http.listen(0, '127.0.0.1')
  return { http, store, spec, baseUrl: `${origin}/v1`, token, spaceId }
}

/** Counts the validators the registry's ajv instances compile from now on. */
function countCompiles(spec: SpecRegistry): { count: number } {
  const counter = { count: 0 }
  for (const name of ['strict', 'coercing']) {
    const ajv = (spec as unknown as Record<string, { compile(schema: unknown): ValidateFunction }>)[name]
    const compile = ajv.compile.bind(ajv)
    vi.spyOn(ajv, 'compile').mockImplementation((schema: unknown) => (counter.count++, compile(schema)))
  }
  return counter
}

async function send(s: Started, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${s.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, body: (await res.json()) as { id?: string; error?: { message?: string } } }
}

/** First requests of several kinds: a change request, a content batch, a bad batch, a space update, a page list. */
async function firstRequests(s: Started) {
  const cr = await send(s, 'POST', `/spaces/${s.spaceId}/change-requests`, { subject: 'First' })
  expect(cr.status).toBe(201)
  const batch = await send(s, 'POST', `/spaces/${s.spaceId}/change-requests/${cr.body.id}/content`, { changes: [{ operation: 'insert_page', title: 'New', document: { markdown: '# New\n' } }] })
  expect(batch.status).toBe(200)
  const bad = await send(s, 'POST', `/spaces/${s.spaceId}/change-requests/${cr.body.id}/content`, { changes: [{ operation: 'insert_page', title: 7 }] })
  expect(bad.status).toBe(400)
  expect(bad.body.error?.message).toMatch(/^body\//)
  expect((await send(s, 'PATCH', `/spaces/${s.spaceId}`, { title: 'Renamed' })).status).toBe(200)
  expect((await send(s, 'GET', `/spaces/${s.spaceId}/content/pages`)).status).toBe(200)
}

describe('request validators are compiled at start-up', () => {
  let started: Started | undefined
  afterEach(async () => {
    await started?.http.close()
    started?.store.close()
    started = undefined
  })

  it('compiles none on the first requests once warm, and refuses a bad body as strictly', async () => {
    started = await start(true)
    await started.http.validatorsWarm
    const compiles = countCompiles(started.spec)
    await firstRequests(started)
    expect(compiles.count, `${compiles.count} validators compiled by first requests after the warm-up`).toBe(0)
  })

  it('compiles them on first use without the warm-up (what the warm-up spares a request)', async () => {
    started = await start(false)
    await started.http.validatorsWarm
    const compiles = countCompiles(started.spec)
    await firstRequests(started)
    expect(compiles.count).toBeGreaterThanOrEqual(5)
  })
})
