import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChangeRequest } from '@gitbook/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'
import { quirePaths } from '../../src/main/engine/account/account'
import { openCacheDatabase } from '../../src/main/engine/cache/open-cache'
import { WorkspaceLease } from '../../src/main/engine/cache/workspace-lease'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { grant } from '../support/content-fixtures'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { openChangeRequests, seedSpace, type SeededSpace } from '../engine/sync-up/support/workspace'

/**
 * The review workflow on the command line (issue 13), end to end: two people, each with their own Quire
 * home (cache, token, workspace), against the real local service. The writer edits and runs quire watch,
 * submits for review and asks the reviewer; the reviewer lists what waits, asks for changes, then
 * approves; the merge is refused by the rule until then, with the rule's reason.
 */

const t = restartableServiceForFile()
let root: string
let seeded: SeededSpace
let reviewer: { id: string; token: string }
const homes = { writer: '', reviewer: '' }
/** A change request the writer's Quire knows (the last test's archived one). */
let known = ''

async function quire(who: keyof typeof homes, ...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  process.env.QUIRE_HOME = homes[who]
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

const writerFile = (name: string) => path.join(homes.writer, 'ws', 'Acme', 'Docs', name)
const getCr = async (id: string) => (await t.api.call('getChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: id } })).body as ChangeRequest

/** The writer saves a page and runs one round of quire watch: their one change request carries it. */
async function writerEdits(text: string): Promise<ChangeRequest> {
  fs.writeFileSync(writerFile('faq.md'), `# FAQ\n\n${text}\n`)
  const watched = await quire('writer', 'watch', '--once')
  expect(watched.code, watched.err).toBe(0)
  const open = await openChangeRequests(t.api, seeded.spaceId)
  expect(open).toHaveLength(1)
  return open[0]
}

/** The (archived) change request numbered `known`. */
async function knownChangeRequest(): Promise<ChangeRequest> {
  const all = (await t.api.call('listChangeRequestsForSpace', { params: { spaceId: seeded.spaceId }, query: { status: 'archived' } })).body.items as ChangeRequest[]
  return all.find((cr) => String(cr.number) === known)!
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-review-cli-'))
  process.env.QUIRE_TOKEN_STORE = 'file'
  seeded = await seedSpace(t)
  reviewer = t.service.createUser({ displayName: 'Reviewer', email: 'reviewer@example.com' })
  t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, reviewer.id, null)
  grant(t.service, seeded.spaceId, reviewer.id, 'review')
  for (const [who, token] of [
    ['writer', t.service.token],
    ['reviewer', reviewer.token],
  ] as const) {
    homes[who] = path.join(root, who)
    expect((await quire(who, 'login', '--endpoint', t.service.baseUrl, '--token', token)).code).toBe(0)
    const sync = await quire(who, 'sync', '--once', '--space', seeded.spaceId, '--workspace', path.join(homes[who], 'ws'))
    expect(sync.code, sync.err).toBe(0)
  }
})
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
  delete process.env.QUIRE_HOME
  delete process.env.QUIRE_TOKEN_STORE
})

describe('quire cr submit, review, reviewers, archive, list --review', () => {
  it('edit, submit with a reviewer, request changes, edit (outdated, same change request), approve, merge once the rule allows', async () => {
    const cr = await writerEdits('First answers.')
    expect(cr.status).toBe('draft')
    expect((await quire('reviewer', 'cr', 'list', '--review')).out).toBe('nothing waits for your review')

    const submitted = await quire('writer', 'cr', 'submit', String(cr.number), '--description', 'Answers the **common** questions.', '--reviewer', reviewer.id)
    expect(submitted.code, submitted.err).toBe(0)
    expect(submitted.out).toBe(`#${cr.number} submitted for review\nasked ${reviewer.id} to review #${cr.number}`)
    expect(await getCr(cr.id)).toMatchObject({ status: 'open', description: { object: 'document' } })

    const listed = await quire('reviewer', 'cr', 'list', '--review')
    expect(listed.code, listed.err).toBe(0)
    expect(listed.out).toBe(`#${String(cr.number).padEnd(4)} Docs: ${cr.subject}  by Quire Owner`)
    const json = JSON.parse((await quire('reviewer', 'cr', 'list', '--review', '--json')).out)
    expect(json).toMatchObject({ offline: false, changeRequests: [{ id: cr.id, number: cr.number, spaceId: seeded.spaceId }] })

    const changes = await quire('reviewer', 'cr', 'review', `#${cr.number}`, '--request-changes', '-m', 'Add the install question.')
    expect(changes.code, changes.err).toBe(0)
    expect(changes.out).toBe(`asked for changes on #${cr.number}`)
    expect((await quire('reviewer', 'cr', 'list', '--review')).out).toBe('nothing waits for your review')
    const reviewers = await quire('writer', 'cr', 'reviewers', String(cr.number))
    expect(reviewers.code, reviewers.err).toBe(0)
    expect(reviewers.out).toBe(`#${cr.number}:\n  Reviewer (${reviewer.id})  asked for changes\n      “Add the install question.”`)

    // The rule: the reviewer must approve. Merging says why not.
    await t.api.call('updateSpaceById', { params: { spaceId: seeded.spaceId }, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reviewer.id] }] } } })
    const early = await quire('writer', 'cr', 'merge', String(cr.number))
    expect(early.code).toBe(1)
    expect(early.err).toBe(`quire cr merge: #${cr.number} cannot be merged: it needs an approving review from Reviewer`)

    // The writer edits again: the same change request, still open; the review is outdated and waits again.
    const again = await writerEdits('First answers. How do I install it?')
    expect(again).toMatchObject({ id: cr.id, status: 'open' })
    const verdicts = JSON.parse((await quire('writer', 'cr', 'reviewers', String(cr.number), '--json')).out)
    expect(verdicts.reviewers).toMatchObject([{ userId: reviewer.id, requested: true, verdict: 'changes-requested', outdated: true }])
    expect((await quire('reviewer', 'cr', 'list', '--review')).out).toContain('(changed since you asked for changes)')

    const approved = await quire('reviewer', 'cr', 'review', String(cr.number), '--approve')
    expect(approved.code, approved.err).toBe(0)
    expect(approved.out).toBe(`approved #${cr.number}`)
    const merged = await quire('writer', 'cr', 'merge', String(cr.number))
    expect(merged.code, merged.err).toBe(0)
    expect(merged.out).toContain(`merged #${cr.number}`)
    expect((await getCr(cr.id)).status).toBe('merged')
    const reviews = (await t.api.call('getReviewsByChangeRequestId', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })).body.items as any[]
    expect(reviews.map((r) => [r.status, r.outdated])).toEqual([
      ['approved', false],
      ['changes-requested', true],
    ])
    await t.api.call('updateSpaceById', { params: { spaceId: seeded.spaceId }, body: { mergeRules: { type: 'none' } } })
  })

  it('offline, submit waits in the outbox and goes out once with the next quire watch; reviewers --add/--remove; archive', async () => {
    const cr = await writerEdits('A new round of answers.')
    known = String(cr.number)
    await t.stop()
    const offline = await quire('writer', 'cr', 'submit', String(cr.number))
    expect(offline.code).toBe(1)
    expect(offline.err).toMatch(/cannot be reached.*it waits in the outbox and goes out with the next quire watch or command/)
    const offlineList = await quire('reviewer', 'cr', 'list', '--review')
    expect(offlineList.err).toMatch(/^offline: waiting for your review as last read at /)
    await t.start()
    expect((await getCr(cr.id)).status).toBe('draft')
    const watched = await quire('writer', 'watch', '--once')
    expect(watched.code, watched.err).toBe(0)
    expect((await getCr(cr.id)).status).toBe('open')

    const added = await quire('writer', 'cr', 'reviewers', String(cr.number), '--add', reviewer.id)
    expect(added.code, added.err).toBe(0)
    expect(added.out).toBe(`asked ${reviewer.id} to review #${cr.number}\n#${cr.number}:\n  Reviewer (${reviewer.id})  asked, no review yet`)
    const removed = await quire('writer', 'cr', 'reviewers', String(cr.number), '--remove', reviewer.id)
    expect(removed.code, removed.err).toBe(0)
    expect(removed.out).toBe(`${reviewer.id} is no longer asked to review #${cr.number}\n#${cr.number}: no reviewers asked, no reviews`)

    const own = await quire('writer', 'cr', 'review', String(cr.number), '--approve')
    expect(own.code).toBe(1)
    expect(own.err).toMatch(/the service refused it: HTTP 403: .*someone else must review it/)

    // While another process (a quire watch) syncs the workspace, the archive is queued for it to send.
    process.env.QUIRE_HOME = homes.writer
    const db = openCacheDatabase(quirePaths().cacheFile)
    const watching = new WorkspaceLease(db)
    expect(watching.acquire({ kind: 'watch' }).acquired).toBe(true)
    try {
      const queued = await quire('writer', 'cr', 'archive', String(cr.number))
      expect(queued.code, queued.err).toBe(0)
      expect(queued.out).toMatch(new RegExp(`^queued \\(archived #${cr.number}\\): quire watch \\(pid ${process.pid} `))
      expect((await getCr(cr.id)).status).toBe('open')
    } finally {
      watching.release()
      db.close()
    }
    const sent = await quire('writer', 'watch', '--once')
    expect(sent.code, sent.err).toBe(0)
    expect((await getCr(cr.id)).status).toBe('archived')
    expect((await t.api.call('getReviewsByChangeRequestId', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })).body.items).toEqual([])
    expect((await quire('writer', 'cr', 'archive', String(cr.number))).out).toBe(`archived #${cr.number}`) // archiving again changes nothing
  })

  it('merge rules: quire cr show lists them; a draft or a request for changes stops quire cr merge with the reason, nothing queued; without rules a draft merges with a note', async () => {
    await t.api.call('updateSpaceById', { params: { spaceId: seeded.spaceId }, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_all_reviews_approved' }, { rule: 'require_at_least_one_review' }] } } })
    const cr = await writerEdits('Answers under rules.')
    expect(cr.status).toBe('draft')
    const shown = await quire('writer', 'cr', 'show', String(cr.number))
    expect(shown.code, shown.err).toBe(0)
    expect(shown.out).toContain(
      [
        '  merge rules:',
        '    NOT MET: Submitted for review (it is a draft: submit it for review first)',
        '    met: Every review approves',
        '    NOT MET: At least one review (the change request needs at least one review of its current content)',
      ].join('\n'),
    )
    const draft = await quire('writer', 'cr', 'merge', String(cr.number))
    expect(draft.code).toBe(1)
    expect(draft.err).toBe(`quire cr merge: #${cr.number} cannot be merged: it is a draft: submit it for review first; the change request needs at least one review of its current content`)

    expect((await quire('writer', 'cr', 'submit', String(cr.number), '--reviewer', reviewer.id)).code).toBe(0)
    expect((await quire('reviewer', 'cr', 'review', String(cr.number), '--request-changes', '-m', 'Not yet.')).code).toBe(0)
    const changes = await quire('writer', 'cr', 'merge', String(cr.number))
    expect(changes.code).toBe(1)
    expect(changes.err).toBe(`quire cr merge: #${cr.number} cannot be merged: every review must approve, and Reviewer asked for changes`)
    // Refused before anything was queued: the next watch sends no merge.
    expect((await quire('writer', 'watch', '--once')).code).toBe(0)
    expect((await getCr(cr.id)).status).toBe('open')

    expect((await quire('reviewer', 'cr', 'review', String(cr.number), '--approve')).code).toBe(0)
    expect((await quire('writer', 'cr', 'show', String(cr.number))).out).toContain('  may be merged')
    const merged = await quire('writer', 'cr', 'merge', String(cr.number))
    expect(merged.code, merged.err).toBe(0)
    expect((await getCr(cr.id)).status).toBe('merged')

    await t.api.call('updateSpaceById', { params: { spaceId: seeded.spaceId }, body: { mergeRules: { type: 'none' } } })
    const quick = await writerEdits('A quick fix without review.')
    const free = await quire('writer', 'cr', 'merge', String(quick.number))
    expect(free.code, free.err).toBe(0)
    expect(free.err).toBe('note: It is a draft: it was not submitted for review.')
    expect((await getCr(quick.id)).status).toBe('merged')
  })

  it('bad input is refused with the usage and writes nothing', async () => {
    const before = (await t.api.call('getRequestedReviewersByChangeRequestId', { params: { spaceId: seeded.spaceId, changeRequestId: (await knownChangeRequest()).id } })).body.items
    const cases: Array<[string[], RegExp]> = [
      [['cr', 'review', known], /one of --approve or --request-changes/],
      [['cr', 'review', known, '--approve', '--request-changes'], /one of --approve or --request-changes/],
      [['cr', 'submit'], /one change request/],
      [['cr', 'archive', known, '--approve'], /takes no --approve/],
      [['cr', 'reviewers', known, '--add', 'a b'], /"a b" is not a user id/],
      [['cr', 'reviewers', known, '--add', ''], /not a user id/],
      [['cr', 'review', '9999', '--approve'], /no change request 9999/],
      [['cr', 'list', '--review', 'extra'], /no arguments/],
    ]
    for (const [args, message] of cases) {
      const run = await quire('writer', ...args)
      expect(run.code, args.join(' ')).toBe(2)
      expect(run.err).toMatch(message)
    }
    expect((await t.api.call('getRequestedReviewersByChangeRequestId', { params: { spaceId: seeded.spaceId, changeRequestId: (await knownChangeRequest()).id } })).body.items).toEqual(before)
    const help = await quire('writer', 'cr', 'review', '--help')
    expect(help.code).toBe(0)
    expect(help.out).toContain('quire cr list --review')
  })

  it('quire cr show lists front matter changes and keeps the diff: offline it shows the change request as last read (issue 27)', async () => {
    fs.writeFileSync(writerFile('faq.md'), '---\ndescription: Answers to questions\n---\n\n# FAQ\n\nAnswers, kept for offline.\n')
    expect((await quire('writer', 'watch', '--once')).code).toBe(0)
    const cr = (await openChangeRequests(t.api, seeded.spaceId))[0]
    const online = await quire('writer', 'cr', 'show', String(cr.number))
    expect(online.code, online.err).toBe(0)
    expect(online.out).toContain('  front matter description: (not set) → Answers to questions')
    await t.stop()
    try {
      const offline = await quire('writer', 'cr', 'show', String(cr.number))
      expect(offline.code, offline.err).toBe(0)
      expect(offline.out).toMatch(new RegExp(`^#${cr.number} .*offline: as last read \\d{4}-`))
      expect(offline.out).toContain('  edits: FAQ (faq.md)')
      expect(offline.out).toContain('    front matter description: (not set) → Answers to questions')
    } finally {
      await t.start()
    }
  })
})
