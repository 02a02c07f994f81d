import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { arrangeSpace, grant, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

type Person = { id: string; token: string }

/** Merge rules that count reviews, enforced at merge; rules are set through the spec's space and organization updates. */
describe('merge rules with reviews', () => {
  let t: TestService
  let writer: Person
  let alice: Person
  let bob: Person
  let carol: Person

  beforeAll(async () => {
    t = await startTestService()
    writer = t.service.createUser({ displayName: 'Writer', email: 'writer@example.com' })
    alice = t.service.createUser({ displayName: 'Alice', email: 'alice@example.com' })
    bob = t.service.createUser({ displayName: 'Bob', email: 'bob@example.com' })
    carol = t.service.createUser({ displayName: 'Carol', email: 'carol@example.com' })
  })
  afterAll(() => t.close())

  /** Everyone is a guest of the organization (rules may only name members) with a role on the space. */
  function space(): ArrangedSpace {
    const s = arrangeSpace(t.service, [page('guide', '# Guide\n\nOld.\n')])
    for (const [person, role] of [
      [writer, 'edit'],
      [alice, 'review'],
      [bob, 'review'],
      [carol, 'review'],
    ] as const) {
      t.service.store.repo(OrganizationsRepository).setMember(s.orgId, person.id, null)
      grant(t.service, s.spaceId, person.id, role)
    }
    return s
  }

  const setSpaceRules = (s: ArrangedSpace, mergeRules: unknown) =>
    t.api.call('updateSpaceById', { params: { spaceId: s.spaceId }, body: { mergeRules } }).then((res) => expect(res.status).toBe(200))
  const rules = (...list: unknown[]) => ({ type: 'rules', rules: list })

  async function openChangeRequest(s: ArrangedSpace) {
    const cr = (await t.api.as(writer.token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Edits' } })).body
    await edit(s, cr, 'First.')
    await t.api.as(writer.token).call('updateChangeRequestById', { params: params(s, cr), body: { status: 'open' } })
    return cr as { id: string }
  }
  const params = (s: ArrangedSpace, cr: { id: string }) => ({ spaceId: s.spaceId, changeRequestId: cr.id })
  const edit = (s: ArrangedSpace, cr: { id: string }, text: string) =>
    t.api.as(writer.token).call('updateChangeRequestContent', {
      params: params(s, cr),
      body: { changes: [{ operation: 'update_page', page: s.pages.guide, document: { markdown: `# Guide\n\n${text}\n` } }] },
    })
  const review = (s: ArrangedSpace, cr: { id: string }, who: Person, status: 'approved' | 'changes-requested') =>
    t.api.as(who.token).call('submitChangeRequestReview', { params: params(s, cr), body: { status } }).then((res) => expect(res.status).toBe(201))
  const merge = (s: ArrangedSpace, cr: { id: string }, who: Person = alice) => t.api.as(who.token).call('mergeChangeRequest', { params: params(s, cr) })

  /** A refused merge answers 400 with the spec's error body, and neither the change request nor the space moves. */
  async function expectRefused(s: ArrangedSpace, cr: { id: string }, ...fragments: string[]) {
    const spaceBefore = (await t.api.call('getSpaceById', { params: { spaceId: s.spaceId } })).body.revision
    const res = await merge(s, cr)
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe(400)
    for (const fragment of fragments) expect(res.body.error.message).toContain(fragment)
    expect((await t.api.call('getChangeRequestById', { params: params(s, cr) })).body.status).toBe('open')
    expect((await t.api.call('getSpaceById', { params: { spaceId: s.spaceId } })).body.revision).toBe(spaceBefore)
  }

  it('require_specific_reviewers: every listed user must approve the current content', async () => {
    const s = space()
    await setSpaceRules(s, rules({ rule: 'require_specific_reviewers', users: [alice.id, bob.id] }))
    const cr = await openChangeRequest(s)
    await expectRefused(s, cr, 'Alice, Bob')
    await review(s, cr, alice, 'approved')
    await review(s, cr, bob, 'changes-requested')
    await expectRefused(s, cr, 'Bob')
    await review(s, cr, carol, 'approved')
    await expectRefused(s, cr, 'Bob')
    await review(s, cr, bob, 'approved')
    // An edit after the approvals makes them outdated: both must approve again.
    await edit(s, cr, 'Changed after the reviews.')
    await expectRefused(s, cr, 'Alice, Bob')
    await review(s, cr, alice, 'approved')
    await review(s, cr, bob, 'approved')
    const merged = await merge(s, cr)
    expect(merged.body.result).toBe('merge')
  })

  it('require_one_of_specific_reviewers: one approval from the list is enough', async () => {
    const s = space()
    await setSpaceRules(s, rules({ rule: 'require_one_of_specific_reviewers', users: [alice.id, bob.id] }))
    const cr = await openChangeRequest(s)
    await review(s, cr, carol, 'approved')
    await expectRefused(s, cr, 'one of Alice, Bob')
    await review(s, cr, bob, 'approved')
    expect((await merge(s, cr)).body.result).toBe('merge')
  })

  it('require_at_least_one_review and require_at_least_one_approved_review', async () => {
    const s = space()
    await setSpaceRules(s, rules({ rule: 'require_at_least_one_review' }))
    const cr = await openChangeRequest(s)
    await expectRefused(s, cr, 'at least one review')
    await review(s, cr, alice, 'changes-requested')
    await setSpaceRules(s, rules({ rule: 'require_at_least_one_review' }, { rule: 'require_at_least_one_approved_review' }))
    await expectRefused(s, cr, 'approving review')
    await review(s, cr, alice, 'approved')
    expect((await merge(s, cr)).body.result).toBe('merge')
  })

  it('require_all_reviews_approved: a current request for changes blocks; an outdated one does not', async () => {
    const s = space()
    await setSpaceRules(s, rules({ rule: 'require_all_reviews_approved' }))
    const cr = await openChangeRequest(s)
    await review(s, cr, alice, 'approved')
    await review(s, cr, bob, 'changes-requested')
    await expectRefused(s, cr, 'Bob asked for changes')
    await edit(s, cr, 'Fixed what Bob asked.')
    await review(s, cr, alice, 'approved')
    expect((await merge(s, cr)).body.result).toBe('merge')
  })

  it("the organization's rules apply to a space that inherits them; allow_bypass lets listed users merge anyway", async () => {
    const s = space()
    const orgRules = rules({ rule: 'require_specific_reviewers', users: [bob.id] }, { rule: 'allow_bypass', users: [carol.id] })
    expect((await t.api.call('updateOrganizationById', { params: { organizationId: s.orgId }, body: { mergeRules: orgRules } })).status).toBe(200)
    const inheriting = (await t.api.call('getSpaceById', { params: { spaceId: s.spaceId } })).body
    expect(inheriting.mergeRules).toEqual({ type: 'inherit' })
    const cr = await openChangeRequest(s)
    await expectRefused(s, cr, 'Bob')
    expect((await merge(s, cr, carol)).body.result).toBe('merge')
  })

  it('a space that disables rules merges without reviews; require_agent_review cannot pass here and says why', async () => {
    const s = space()
    await t.api.call('updateOrganizationById', { params: { organizationId: s.orgId }, body: { mergeRules: rules({ rule: 'require_at_least_one_review' }) } })
    await setSpaceRules(s, rules({ rule: 'require_agent_review' }))
    const cr = await openChangeRequest(s)
    await review(s, cr, alice, 'approved')
    await expectRefused(s, cr, 'agent')
    await setSpaceRules(s, { type: 'none' })
    expect((await merge(s, cr)).body.result).toBe('merge')
  })

  it('a draft is not up for review: while a rule asks for reviews it is refused, saying so, even when approved', async () => {
    const s = space()
    await setSpaceRules(s, rules({ rule: 'require_at_least_one_approved_review' }))
    const cr = (await t.api.as(writer.token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Drafted' } })).body as { id: string }
    await edit(s, cr, 'Drafted text.')
    await review(s, cr, alice, 'approved')
    const refused = await merge(s, cr)
    expect(refused.status).toBe(400)
    expect(refused.body.error.message).toContain('it is a draft: submit it for review first')
    expect((await t.api.call('getChangeRequestById', { params: params(s, cr) })).body.status).toBe('draft')
    await t.api.as(writer.token).call('updateChangeRequestById', { params: params(s, cr), body: { status: 'open' } })
    expect((await merge(s, cr)).body.result).toBe('merge')
    // Without review rules a draft merges as before.
    await setSpaceRules(s, rules({ rule: 'require_change_request_subject' }))
    const other = (await t.api.as(writer.token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Quick fix' } })).body as { id: string }
    await edit(s, other, 'A quick fix.')
    expect((await merge(s, other)).body.result).toBe('merge')
  })

  it('rules naming someone outside the organization are refused when set', async () => {
    const s = space()
    const outsider = t.service.createUser({ displayName: 'Outsider', email: 'outsider@example.com' })
    const res = await t.api.call('updateSpaceById', {
      params: { spaceId: s.spaceId },
      body: { mergeRules: rules({ rule: 'require_specific_reviewers', users: [outsider.id] }) },
    })
    expect(res.status).toBe(400)
    expect((await t.api.call('getSpaceById', { params: { spaceId: s.spaceId } })).body.mergeRules).toEqual({ type: 'inherit' })
  })
})
