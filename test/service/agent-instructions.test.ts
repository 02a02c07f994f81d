import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AgentInstructionsRepository } from '../../src/main/service/store/agent-instructions'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { arrangeOrg, person, type Person } from '../support/fixtures'
import { startTestService, type TestService } from '../support/service'

const paragraph = (text: string) => ({
  object: 'document',
  data: { schemaVersion: 1 },
  nodes: [{ object: 'block', type: 'paragraph', key: 'p1', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] }],
})

describe('agent instructions', () => {
  let t: TestService
  let orgId: string
  let orgCreatedAt: string
  let member: Person
  let guest: Person
  let stranger: Person

  const params = () => ({ organizationId: orgId })

  beforeAll(async () => {
    t = await startTestService()
    member = person(t, 'Mia')
    guest = person(t, 'Gus')
    stranger = person(t, 'Stan')
    orgId = arrangeOrg(t, [[member, 'edit'], [guest, null]], 'Agent Org')
    orgCreatedAt = t.service.store.repo(OrganizationsRepository).get(orgId)!.createdAt
  })
  afterAll(() => t.close())

  it('starts empty, dated from the organization and attributed to its creator', async () => {
    const res = await member.api.call('getOrganizationAgentInstructions', { params: params() })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      object: 'agent-instructions',
      instructions: { object: 'document', data: {}, nodes: [] },
      updatedAt: orgCreatedAt,
      updatedBy: t.service.ownerId,
      urls: { location: `${t.service.baseUrl}/orgs/${orgId}/agent-instructions` },
    })
  })

  it('stores a document with PUT and records who changed it and when', async () => {
    const res = await t.api.call('updateOrganizationAgentInstructions', { params: params(), body: { instructions: paragraph('Answer briefly.') } })
    expect(res.status).toBe(200)
    expect(res.body.instructions).toEqual(paragraph('Answer briefly.'))
    expect(res.body.updatedBy).toBe(t.service.ownerId)
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(orgCreatedAt))
    const read = await member.api.call('getOrganizationAgentInstructions', { params: params() })
    expect(read.body).toEqual(res.body)
  })

  it('rejects malformed documents with 400 and keeps the stored ones', async () => {
    const before = t.service.store.repo(AgentInstructionsRepository).get(orgId)
    const bad: unknown[] = [
      {},
      { instructions: 'Answer briefly.' },
      { instructions: { object: 'document', nodes: [] } },
      { instructions: { object: 'page', data: {}, nodes: [] } },
      { instructions: { object: 'document', data: {}, nodes: [{ object: 'block', type: 'no-such-block' }] } },
      { instructions: { object: 'document', data: { schemaVersion: 'one' }, nodes: [] } },
    ]
    for (const body of bad) {
      const res = await t.api.call('updateOrganizationAgentInstructions', { params: params(), body })
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.error.code).toBe(400)
    }
    const raw = await t.api.raw('PUT', `/orgs/${orgId}/agent-instructions`, '{"instructions":', t.service.token)
    expect(raw.status).toBe(400)
    expect(t.service.store.repo(AgentInstructionsRepository).get(orgId)).toEqual(before)
  })

  it('lets only admins write; guests cannot read; outsiders and unknown organizations get 404', async () => {
    const before = t.service.store.repo(AgentInstructionsRepository).get(orgId)
    const denied = await member.api.call('updateOrganizationAgentInstructions', { params: params(), body: { instructions: paragraph('Mine') } })
    expect(denied.status).toBe(403)
    expect(t.service.store.repo(AgentInstructionsRepository).get(orgId)).toEqual(before)
    expect((await guest.api.call('getOrganizationAgentInstructions', { params: params() })).status).toBe(403)
    expect((await stranger.api.call('getOrganizationAgentInstructions', { params: params() })).status).toBe(404)
    expect((await t.api.call('getOrganizationAgentInstructions', { params: { organizationId: 'nope' } })).status).toBe(404)
    const unknown = await t.api.call('updateOrganizationAgentInstructions', { params: { organizationId: 'nope' }, body: { instructions: paragraph('x') } })
    expect(unknown.status).toBe(404)
  })
})
