import { expect } from 'vitest'
import type { Role } from '../../src/main/service/access/roles'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import type { ServiceStore } from '../../src/main/service/store/service-store'
import type { ApiClient, TestService } from './service'

/** A user of the running service with a client acting as them. */
export interface Person {
  id: string
  token: string
  api: ApiClient
}

/** The published spec's error body, as a matcher. */
export const errorBody = (code: number) => ({ error: { code, message: expect.any(String) } })

/** `limit` values a paged list must refuse with 400. */
export const HOSTILE_LIMITS = ['5000', '-1', 'abc'] as const

export function person(t: TestService, name: string, email = `${name.toLowerCase()}@example.com`): Person {
  const user = t.service.createUser({ displayName: name, email })
  return { ...user, api: t.api.as(user.token) }
}

/** The service owner (the user of `t.api`). */
export const owner = (t: TestService): Person => ({ id: t.service.ownerId, token: t.service.token, api: t.api })

/** An organization owned by the service owner, with the given members and organization roles (null: guest). */
export function arrangeOrg(t: TestService, members: Array<[Person, Role | null]> = [], title = 'Fixture org'): string {
  const orgs = t.service.store.repo(OrganizationsRepository)
  const orgId = orgs.create({ title, owner: t.service.ownerId }).id
  for (const [who, role] of members) orgs.setMember(orgId, who.id, role)
  return orgId
}

/** Spaces created over HTTP in the organization, one after the other; their ids by title. */
export async function createSpaces(t: TestService, orgId: string, titles: readonly string[]): Promise<Record<string, string>> {
  const ids: Record<string, string> = {}
  for (const title of titles) ids[title] = (await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title } })).body.id
  return ids
}

/**
 * Every row of every table, to show that a rejected request wrote nothing. Test-only: it reads the
 * SQLite file directly because no repository has (or should have) a "dump everything" query.
 */
export function snapshotDb(store: ServiceStore): Record<string, string[]> {
  const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>
  const out: Record<string, string[]> = {}
  for (const { name } of tables) {
    out[name] = (store.db.prepare(`SELECT * FROM "${name}"`).all() as unknown[]).map((row) => JSON.stringify(row)).sort()
  }
  return out
}

/** A rejected request answers `status` with the error body. */
export function expectError(res: { status: number; body: unknown }, status: number, what = '') {
  expect(res.status, `${what} ${JSON.stringify(res.body)}`).toBe(status)
  expect(res.body, what).toEqual(errorBody(status))
}
