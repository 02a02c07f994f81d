import { parseArgs } from 'node:util'
import { ChangeRequestStatus, GitBookAPIError } from '@gitbook/api'
import {
  ActionRefusedError, describeHolder, InvalidReviewInputError, isAuthError, openWorkspace, paginate, quirePaths, ReviewSession, ServiceUnreachableError,
  type ActionOutcome, type OpenWorkspace, type ReviewerVerdict, type WaitingReview, type WorkspaceSession,
} from '../engine'
import type { CliIo } from './io'
import { SIGN_IN_HINT } from './space-states'

export const reviewUsage = `quire cr submit <id | number> [--description TEXT] [--reviewer USER ...] [--space ID]
quire cr review <id | number> --approve | --request-changes [-m TEXT] [--space ID]
quire cr reviewers <id | number> [--add USER ...] [--remove USER ...] [--space ID] [--json]
quire cr archive <id | number> [--space ID]
quire cr list --review [--json]

The review workflow. submit: a draft change request goes up for review (open), with a description
(markdown) and reviewers to ask if given. review: approve it, or ask for changes, with a comment (-m).
reviewers: who was asked and each one's latest verdict; --add asks users (ids) for a review, --remove
withdraws the request. archive: closes it without merging. list --review: the change requests in the
selected spaces that wait for your review (asked, and not reviewed since they last changed).
Each action goes through the outbox: offline it waits, and goes out once with the next quire watch or
command. A USER is a user id (quire cr reviewers lists the ids of those already involved).`

const ACTIONS = new Set(['submit', 'review', 'reviewers', 'archive'])

/** Whether `quire cr <action> ...` is one of the review workflow's (they live here, not in cr-command.ts). */
export function isReviewCommand(action: string | undefined, rest: readonly string[]): boolean {
  return action !== undefined && (ACTIONS.has(action) || (action === 'list' && rest.includes('--review')))
}

export async function reviewCommand(action: string, rest: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      space: { type: 'string' },
      description: { type: 'string' },
      reviewer: { type: 'string', multiple: true },
      approve: { type: 'boolean', default: false },
      'request-changes': { type: 'boolean', default: false },
      message: { type: 'string', short: 'm' },
      add: { type: 'string', multiple: true },
      remove: { type: 'string', multiple: true },
      review: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
    strict: true,
  })
  if (values.help) {
    io.out(reviewUsage)
    return 0
  }
  const allowed: Record<string, string[]> = {
    list: ['review', 'json'],
    submit: ['space', 'description', 'reviewer'],
    review: ['space', 'approve', 'request-changes', 'message'],
    reviewers: ['space', 'add', 'remove', 'json'],
    archive: ['space'],
  }
  const misplaced = Object.entries(values).find(([name, value]) => value !== undefined && value !== false && name !== 'help' && !allowed[action].includes(name))
  if (misplaced) return usage(io, `quire cr ${action} takes no --${misplaced[0]}`)
  if (action === 'list' ? positionals.length !== 0 : positionals.length !== 1) return usage(io, `quire cr ${action}: ${action === 'list' ? 'no arguments' : 'one change request (id or number)'} expected`)
  if (action === 'review' && values.approve === values['request-changes']) return usage(io, 'quire cr review: give one of --approve or --request-changes')

  let ctx: OpenWorkspace | undefined
  try {
    // Another process syncing the workspace sends what this one queues.
    ctx = await openWorkspace(quirePaths(), { lease: 'cli', watch: false })
    const { session } = ctx
    const reviews = new ReviewSession(session, ctx)
    if (action === 'list') return await listWaiting(reviews, io, values.json)
    const cr = await target(ctx, positionals[0], values.space)
    const say = new Outcomes(io, action, session)
    switch (action) {
      case 'submit': {
        const submitted = await reviews.submitForReview(cr.spaceId, cr.id, { description: values.description })
        if (!say.sent(submitted, `#${cr.number} submitted for review`)) return 1
        if (values.reviewer?.length && !say.sent(await reviews.requestReviewers(cr.spaceId, cr.id, values.reviewer), `asked ${values.reviewer.join(', ')} to review #${cr.number}`))
          return 1
        return 0
      }
      case 'review': {
        const verdict = values.approve ? 'approved' : 'changes-requested'
        const outcome = await reviews.review(cr.spaceId, cr.id, verdict, values.message)
        return say.sent(outcome, verdict === 'approved' ? `approved #${cr.number}` : `asked for changes on #${cr.number}`) ? 0 : 1
      }
      case 'archive':
        return say.sent(await reviews.archive(cr.spaceId, cr.id), `archived #${cr.number}`) ? 0 : 1
      case 'reviewers': {
        let ok = true
        if (values.add?.length) ok = say.sent(await reviews.requestReviewers(cr.spaceId, cr.id, values.add), `asked ${values.add.join(', ')} to review #${cr.number}`)
        for (const user of values.remove ?? []) {
          if (!ok) break
          ok = say.sent(await reviews.removeReviewer(cr.spaceId, cr.id, user), `${user} is no longer asked to review #${cr.number}`)
        }
        if (!ok) return 1
        if (say.queued) return 0 // nothing to list that says more than "queued"
        const listed = await reviews.reviewers(cr.spaceId, cr.id)
        if (values.json) io.out(JSON.stringify({ spaceId: cr.spaceId, changeRequestId: cr.id, number: cr.number, reviewers: listed }, null, 2))
        else printReviewers(io, cr.number, listed)
        return 0
      }
    }
    return 2
  } catch (error) {
    if (error instanceof InvalidReviewInputError) return usage(io, `quire cr ${action}: ${error.message}`)
    if (error instanceof ActionRefusedError) {
      io.err(`quire cr ${action}: ${error.message}`)
      return 1
    }
    if (error instanceof ServiceUnreachableError) {
      io.err(`quire cr ${action}: ${error.message}`)
      return 1
    }
    // A 401 goes up as it is: quire's main says to sign in again.
    if (error instanceof GitBookAPIError && !isAuthError(error)) throw new Error(`the service answered HTTP ${error.code}: ${error.errorMessage}`)
    throw error
  } finally {
    await ctx?.close()
  }
}

/** What an action came to, said once: sent, queued for the process that syncs, or waiting (offline, signed out). */
class Outcomes {
  queued = false

  constructor(
    private readonly io: CliIo,
    private readonly action: string,
    private readonly session: WorkspaceSession,
  ) {}

  /** True when the action is sent or in the hands of a running sync; false (said on stderr) when it waits. */
  sent(outcome: ActionOutcome, done: string): boolean {
    if (outcome.sent) {
      this.io.out(done)
      return true
    }
    const holder = this.session.attachedTo
    if (holder) {
      this.queued = true
      this.io.out(`queued (${done}): ${describeHolder(holder)} sends it`)
      return true
    }
    const why = outcome.waiting ?? 'not sent yet'
    if (/refused the token/.test(why)) this.io.err(`quire cr ${this.action}: the service refused the saved token (HTTP 401); ${SIGN_IN_HINT}. It waits in the outbox and goes out once you are signed in`)
    else this.io.err(`quire cr ${this.action}: ${why}; it waits in the outbox and goes out with the next quire watch or command`)
    return false
  }
}

async function listWaiting(reviews: ReviewSession, io: CliIo, json: boolean): Promise<number> {
  const queue = await reviews.waitingForMyReview()
  if (json) {
    io.out(JSON.stringify({ offline: queue.asOf !== undefined, asOf: queue.asOf, changeRequests: queue.items }, null, 2))
    return 0
  }
  if (queue.asOf) io.err(`offline: waiting for your review as last read at ${queue.asOf}`)
  if (queue.items.length === 0) io.out('nothing waits for your review')
  for (const item of queue.items) io.out(`#${String(item.number).padEnd(4)} ${item.spaceTitle}: ${item.subject || '(no subject)'}  by ${item.author}${item.requestedBy && item.requestedBy !== item.author ? `, asked by ${item.requestedBy}` : ''}${again(item)}`)
  return 0
}

function again(item: WaitingReview): string {
  if (!item.myReview) return ''
  return `  (changed since you ${item.myReview.verdict === 'approved' ? 'approved it' : 'asked for changes'})`
}

function printReviewers(io: CliIo, number: number, reviewers: ReviewerVerdict[]) {
  if (reviewers.length === 0) {
    io.out(`#${number}: no reviewers asked, no reviews`)
    return
  }
  io.out(`#${number}:`)
  const width = Math.max(...reviewers.map((r) => `${r.name} (${r.userId})`.length))
  for (const r of reviewers) {
    const verdict = r.verdict === undefined ? 'asked, no review yet' : `${r.verdict === 'approved' ? 'approved' : 'asked for changes'}${r.outdated ? ' (outdated: the change request changed since)' : ''}`
    io.out(`  ${`${r.name} (${r.userId})`.padEnd(width)}  ${verdict}${r.verdict && !r.requested ? ', not asked' : ''}`)
    if (r.comment) io.out(`      “${r.comment.replace(/\s+/g, ' ')}”`)
  }
}

/**
 * The change request a command names: an id or a number (#3), looked up among the change requests seen
 * in the selected spaces (the mirror); when the mirror does not have it, the selected spaces' open and
 * draft change requests are read again first.
 */
async function target(ctx: OpenWorkspace, ref: string, spaceId: string | undefined): Promise<{ spaceId: string; id: string; number: number }> {
  const found = lookUp(ctx, ref, spaceId)
  if (found) return found
  try {
    const { gateway } = ctx
    const spaces = spaceId ? [spaceId] : ctx.cache.selectedSpaces().map((s) => s.id)
    for (const space of spaces) {
      for (const status of [ChangeRequestStatus.Draft, ChangeRequestStatus.Open]) {
        const list = (page: string | undefined) => gateway.client.spaces.listChangeRequestsForSpace(space, { page, status, limit: 100 }).then((r) => r.data)
        for await (const cr of paginate(list)) ctx.outbox.saveChangeRequest(space, cr)
      }
    }
  } catch (error) {
    if (!(error instanceof ServiceUnreachableError)) throw error
  }
  const again = lookUp(ctx, ref, spaceId)
  if (again) return again
  if (spaceId && !/^#?\d+$/.test(ref)) return { spaceId, id: ref, number: 0 }
  throw new InvalidReviewInputError(`no change request ${ref} in the selected spaces: quire cr list --review lists those waiting for you; add --space ID with an id`)
}

function lookUp(ctx: OpenWorkspace, ref: string, spaceId: string | undefined): { spaceId: string; id: string; number: number } | undefined {
  const known = ctx.outbox.changeRequests(spaceId)
  const byId = known.find((cr) => cr.id === ref)
  if (byId) return { spaceId: byId.spaceId, id: byId.id, number: byId.number }
  const number = /^#?(\d+)$/.exec(ref)?.[1]
  if (number === undefined) return undefined
  const matches = known.filter((cr) => cr.number === Number(number))
  if (matches.length > 1) throw new InvalidReviewInputError(`several spaces have a change request #${number}: add --space ID`)
  return matches[0] && { spaceId: matches[0].spaceId, id: matches[0].id, number: matches[0].number }
}

function usage(io: CliIo, message: string): number {
  io.err(`${message}\n\n${reviewUsage}`)
  return 2
}
