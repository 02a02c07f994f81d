import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { SamlProvidersRepository } from '../../src/main/service/store/saml-providers'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { TeamsRepository } from '../../src/main/service/store/teams'
import { arrangeOrg, person, type Person } from '../support/fixtures'
import { startTestService, type TestService } from '../support/service'

describe('teams', () => {
  let t: TestService
  let orgId: string
  let member: Person // organization role `edit`
  let guest: Person // organization guest (null role)
  let stranger: Person // not in the organization

  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const teamCount = () => t.service.store.repo(TeamsRepository).listByOrg(orgId).length
  const createTeam = async (title: string, members: string[] = []) => {
    const res = await t.api.call('createOrganizationTeam', { params: params(), body: { title, members } })
    expect(res.status).toBe(201)
    return res.body
  }

  beforeAll(async () => {
    t = await startTestService()
    member = person(t, 'Mia')
    guest = person(t, 'Gus')
    stranger = person(t, 'Stan')
    orgId = arrangeOrg(t, [[member, 'edit'], [guest, null]], 'Teams Org')
  })
  afterAll(() => t.close())

  it('creates a team with PUT (201) and true member and space counts', async () => {
    const team = await createTeam('Writers', [member.id, t.service.ownerId, member.id])
    expect(team).toMatchObject({ object: 'team', title: 'Writers', members: 2, spaces: 0, permissions: { admin: true, view: true } })

    const store = t.service.store
    const spaces = store.repo(SpacesRepository)
    const live = spaces.create({ orgId, title: 'Live' })
    const gone = spaces.create({ orgId, title: 'Gone' })
    // Team grants on spaces belong to the space-permissions family; the test arranges them directly.
    const grant = store.db.prepare('INSERT INTO space_teams (space_id, team_id, role) VALUES (?, ?, ?)')
    grant.run(live.id, team.id, 'read')
    grant.run(gone.id, team.id, 'edit')
    spaces.markDeleted(gone.id, store.now())

    const res = await t.api.call('getTeamInOrganizationById', { params: params({ teamId: team.id }) })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: team.id, members: 2, spaces: 1 })
  })

  it('lists teams with paging, a case-insensitive title filter and the owner filter', async () => {
    const alpha = await createTeam('Alpha Squad')
    await createTeam('Beta squad')
    await createTeam('Gamma')
    t.service.store.repo(TeamsRepository).setMember(alpha.id, member.id, 'owner')

    const first = await t.api.call('listTeamsInOrganizationById', { params: params(), query: { limit: 2 } })
    expect(first.status).toBe(200)
    expect(first.body.items).toHaveLength(2)
    expect(first.body.count).toBe(teamCount())
    const second = await t.api.call('listTeamsInOrganizationById', { params: params(), query: { limit: 2, page: first.body.next.page } })
    expect(second.body.items.map((x: any) => x.id)).not.toContain(first.body.items[0].id)

    const squads = await t.api.call('listTeamsInOrganizationById', { params: params(), query: { title: 'SQUAD' } })
    expect(squads.body.items.map((x: any) => x.title).sort()).toEqual(['Alpha Squad', 'Beta squad'])

    // A member manages only the teams they own; an admin manages all of them.
    const owned = await t.api.call('listTeamsInOrganizationById', { params: params(), query: { owner: member.id } })
    expect(owned.body.items.map((x: any) => x.id)).toEqual([alpha.id])
    const adminOwned = await t.api.call('listTeamsInOrganizationById', { params: params(), query: { owner: t.service.ownerId } })
    expect(adminOwned.body.count).toBe(teamCount())

    // Permissions tell the member which teams they may manage.
    const seen = await member.api.call('listTeamsInOrganizationById', { params: params(), query: { limit: 100 } })
    for (const team of seen.body.items) expect(team.permissions).toEqual({ admin: team.id === alpha.id, view: true })
  })

  it('rejects hostile limits and page tokens with 400', async () => {
    for (const limit of [5000, -1, 'abc']) {
      const res = await t.api.call('listTeamsInOrganizationById', { params: params(), query: { limit } })
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe(400)
    }
    const res = await t.api.call('listTeamsInOrganizationById', { params: params(), query: { page: 'not-a-token' } })
    expect(res.status).toBe(400)
  })

  it('enforces the title limit 1..64 on create and patch, and nothing is written', async () => {
    const before = teamCount()
    for (const body of [{ title: '' }, { title: 'x'.repeat(65) }, { title: '   ' }, {}, { title: 42 }, { title: 'ok', members: 'nope' }]) {
      const res = await t.api.call('createOrganizationTeam', { params: params(), body })
      expect(res.status).toBe(400)
      expect(res.body.error.code).toBe(400)
    }
    expect(teamCount()).toBe(before)
    const longest = await createTeam('x'.repeat(64))
    expect(longest.title).toHaveLength(64)

    for (const body of [{ title: '' }, { title: 'y'.repeat(65) }, {}]) {
      const res = await t.api.call('updateTeamInOrganizationById', { params: params({ teamId: longest.id }), body })
      expect(res.status).toBe(400)
    }
    const after = await t.api.call('getTeamInOrganizationById', { params: params({ teamId: longest.id }) })
    expect(after.body.title).toBe('x'.repeat(64))
  })

  it('rejects members who do not belong to the organization', async () => {
    const before = teamCount()
    const res = await t.api.call('createOrganizationTeam', { params: params(), body: { title: 'Mixed', members: [member.id, stranger.id] } })
    expect(res.status).toBe(400)
    expect(res.body.error.message).toContain(stranger.id)
    expect(teamCount()).toBe(before)
  })

  it('renames a team (owners may, plain members may not)', async () => {
    const team = await createTeam('Old name')
    const res = await t.api.call('updateTeamInOrganizationById', { params: params({ teamId: team.id }), body: { title: 'New name' } })
    expect(res.status).toBe(200)
    expect(res.body.title).toBe('New name')

    const denied = await member.api.call('updateTeamInOrganizationById', { params: params({ teamId: team.id }), body: { title: 'Hijack' } })
    expect(denied.status).toBe(403)
    t.service.store.repo(TeamsRepository).setMember(team.id, member.id, 'owner')
    const allowed = await member.api.call('updateTeamInOrganizationById', { params: params({ teamId: team.id }), body: { title: 'By owner' } })
    expect(allowed.status).toBe(200)
    expect(allowed.body.permissions.admin).toBe(true)
  })

  it('deletes a team with its space grants and SAML default', async () => {
    const team = await createTeam('Doomed', [member.id])
    const store = t.service.store
    const space = store.repo(SpacesRepository).create({ orgId, title: 'Granted' })
    store.db.prepare('INSERT INTO space_teams (space_id, team_id, role) VALUES (?, ?, ?)').run(space.id, team.id, 'read')
    const provider = store.repo(SamlProvidersRepository).create(orgId, { label: 'IdP', defaultTeam: team.id, defaultRole: null })

    const denied = await member.api.call('removeTeamFromOrganizationById', { params: params({ teamId: team.id }) })
    expect(denied.status).toBe(403)
    const res = await t.api.call('removeTeamFromOrganizationById', { params: params({ teamId: team.id }) })
    expect(res.status).toBe(205)
    expect((await t.api.call('getTeamInOrganizationById', { params: params({ teamId: team.id }) })).status).toBe(404)
    expect(store.db.prepare('SELECT COUNT(*) AS n FROM space_teams WHERE team_id = ?').get(team.id)).toEqual({ n: 0 })
    expect(store.repo(SamlProvidersRepository).get(provider.id)?.defaultTeam).toBeNull()
    // The spec's outcome for a team that does not exist (any more) is 204, not an error.
    expect((await t.api.call('removeTeamFromOrganizationById', { params: params({ teamId: team.id }) })).status).toBe(204)
    expect((await t.api.call('removeTeamFromOrganizationById', { params: { organizationId: 'nope', teamId: team.id } })).status).toBe(404)
  })

  it('answers 404 for unknown organizations and teams, and for outsiders; 403 for guests and non-admins', async () => {
    const team = await createTeam('Visible')
    expect((await t.api.call('getTeamInOrganizationById', { params: params({ teamId: 'nope' }) })).status).toBe(404)
    expect((await t.api.call('getTeamInOrganizationById', { params: { organizationId: 'nope', teamId: team.id } })).status).toBe(404)
    expect((await t.api.call('updateTeamInOrganizationById', { params: params({ teamId: 'nope' }), body: { title: 'x' } })).status).toBe(404)
    expect((await stranger.api.call('listTeamsInOrganizationById', { params: params() })).status).toBe(404)
    expect((await stranger.api.call('getTeamInOrganizationById', { params: params({ teamId: team.id }) })).status).toBe(404)
    expect((await guest.api.call('listTeamsInOrganizationById', { params: params() })).status).toBe(403)
    const before = teamCount()
    expect((await member.api.call('createOrganizationTeam', { params: params(), body: { title: 'Mine' } })).status).toBe(403)
    expect(teamCount()).toBe(before)
    // Path parameters outside the id alphabet are bad input.
    expect((await t.api.raw('GET', `/orgs/${orgId}/teams/bad%20id`)).status).toBe(400)
  })

  describe('membership', () => {
    it('adds, lists, re-roles and removes members', async () => {
      const team = await createTeam('Crew')
      const add = await t.api.call('addMemberToOrganizationTeamById', { params: params({ teamId: team.id, userId: member.id }) })
      expect(add.status).toBe(204)
      const asOwner = await t.api.call('addMemberToOrganizationTeamById', {
        params: params({ teamId: team.id, userId: guest.id }),
        body: { role: 'owner' },
      })
      expect(asOwner.status).toBe(204)

      const list = await t.api.call('listTeamMembersInOrganizationById', { params: params({ teamId: team.id }), query: { limit: 1 } })
      expect(list.status).toBe(200)
      expect(list.body.count).toBe(2)
      expect(list.body.items[0]).toMatchObject({ organization: { object: 'member', id: member.id, role: 'edit' }, team: { role: 'member' } })
      const rest = await t.api.call('listTeamMembersInOrganizationById', { params: params({ teamId: team.id }), query: { page: list.body.next.page } })
      expect(rest.body.items[0]).toMatchObject({ organization: { id: guest.id, role: null, teams: 1 }, team: { role: 'owner' } })

      const update = await t.api.call('updateMembersInOrganizationTeam', {
        params: params({ teamId: team.id }),
        body: { add: [t.service.ownerId], remove: [guest.id], memberships: { [member.id]: { role: 'owner' } } },
      })
      expect(update.status).toBe(204)
      const after = await t.api.call('listTeamMembersInOrganizationById', { params: params({ teamId: team.id }) })
      const roles = Object.fromEntries(after.body.items.map((m: any) => [m.organization.id, m.team.role]))
      expect(roles).toEqual({ [member.id]: 'owner', [t.service.ownerId]: 'member' })
      expect((await t.api.call('getTeamInOrganizationById', { params: params({ teamId: team.id }) })).body.members).toBe(2)

      const removed = await t.api.call('deleteMemberFromOrganizationTeamById', { params: params({ teamId: team.id, userId: t.service.ownerId }) })
      expect(removed.status).toBe(205)
      const again = await t.api.call('deleteMemberFromOrganizationTeamById', { params: params({ teamId: team.id, userId: t.service.ownerId }) })
      expect(again.status).toBe(204)
      const unknownTeam = await t.api.call('deleteMemberFromOrganizationTeamById', { params: params({ teamId: 'missing', userId: member.id }) })
      expect(unknownTeam.status).toBe(404)
    })

    it('rejects bad membership changes without writing anything', async () => {
      const team = await createTeam('Strict', [member.id])
      const members = () => t.service.store.repo(TeamsRepository).members(team.id)
      const before = members()
      const bad = [
        { add: [stranger.id] },
        { add: [guest.id], remove: [guest.id] },
        { memberships: { [stranger.id]: { role: 'owner' } } },
        { memberships: { [member.id]: { role: 'boss' } } },
        { add: 'everyone' },
        { add: [guest.id], memberships: { [t.service.ownerId]: { role: 'owner' } } },
      ]
      for (const body of bad) {
        const res = await t.api.call('updateMembersInOrganizationTeam', { params: params({ teamId: team.id }), body })
        expect(res.status).toBe(400)
      }
      expect(members()).toEqual(before)
      const wrongRole = await t.api.call('addMemberToOrganizationTeamById', {
        params: params({ teamId: team.id, userId: guest.id }),
        body: { role: 'captain' },
      })
      expect(wrongRole.status).toBe(400)
      const outsider = await t.api.call('addMemberToOrganizationTeamById', { params: params({ teamId: team.id, userId: stranger.id }) })
      expect(outsider.status).toBe(404)
      expect(members()).toEqual(before)
      const unknownTeam = await t.api.call('listTeamMembersInOrganizationById', { params: params({ teamId: 'missing' }) })
      expect(unknownTeam.status).toBe(404)
      expect((await t.api.call('listTeamMembersInOrganizationById', { params: params({ teamId: team.id }), query: { limit: 5000 } })).status).toBe(400)
    })

    it('lets team owners manage members and refuses plain members', async () => {
      const team = await createTeam('Owned')
      const denied = await member.api.call('addMemberToOrganizationTeamById', { params: params({ teamId: team.id, userId: member.id }) })
      expect(denied.status).toBe(403)
      t.service.store.repo(TeamsRepository).setMember(team.id, member.id, 'owner')
      const allowed = await member.api.call('updateMembersInOrganizationTeam', { params: params({ teamId: team.id }), body: { add: [guest.id] } })
      expect(allowed.status).toBe(204)
      expect((await guest.api.call('deleteMemberFromOrganizationTeamById', { params: params({ teamId: team.id, userId: member.id }) })).status).toBe(
        403,
      )
    })

    it('drops team memberships when someone leaves the organization', async () => {
      const leaver = person(t, 'Lea')
      const orgs = t.service.store.repo(OrganizationsRepository)
      orgs.setMember(orgId, leaver.id, 'read')
      const team = await createTeam('Transient', [leaver.id])
      orgs.removeMember(orgId, leaver.id)
      expect((await t.api.call('getTeamInOrganizationById', { params: params({ teamId: team.id }) })).body.members).toBe(0)
    })
  })
})
