import type { ChangeRequest, ChangeRequestRequestedReviewer, ChangeRequestReview } from '@gitbook/api'
import { judgeMergeRules, rulesInForce } from '../../content'
import type { MergeCheck } from '../../../shared/contract'
import { paginate, type ApiGateway } from '../gateway/api-gateway'

export type { MergeCheck } from '../../../shared/contract'

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

/** True when a JSON document holds some non-blank text (its text lives in leaves' `text`). */
function hasText(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasText)
  if (!node || typeof node !== 'object') return false
  return Object.entries(node).some(([key, value]) => (key === 'text' && typeof value === 'string' ? value.trim() !== '' : hasText(value)))
}

/**
 * Whether the user may merge a change request now, judged before asking: the merge rules in force (the
 * space's, or its organization's when it inherits) with the content model's `judgeMergeRules`, the one
 * the local service refuses with, over what the API says of the change request and its reviews. The
 * cautions name what a merge skips though no rule stops it: a draft nobody reviewed, a review asked for
 * and not given, a request for changes. The service still has the last word at merge time.
 */
export async function mergeCheck(gateway: ApiGateway, userId: string, spaceId: string, changeRequestId: string): Promise<MergeCheck> {
  const { spaces, orgs } = gateway.client
  const [space, cr, reviews, asked] = await Promise.all([
    spaces.getSpaceById(spaceId).then((r) => r.data),
    spaces.getChangeRequestById(spaceId, changeRequestId).then((r) => r.data),
    collect(paginate((page) => spaces.getReviewsByChangeRequestId(spaceId, changeRequestId, { page }).then((r) => r.data))),
    collect(paginate((page) => spaces.getRequestedReviewersByChangeRequestId(spaceId, changeRequestId, { page }).then((r) => r.data))),
  ])
  const own = space.mergeRules as { type?: unknown } | undefined
  const inherits = own?.type === 'inherit' || own?.type === undefined
  const orgRules = inherits ? ((await orgs.getOrganizationById(space.organization)).data.mergeRules as { type?: unknown } | undefined) : undefined
  const config = rulesInForce(own, () => orgRules)

  const names = new Map<string, string>()
  for (const review of reviews) names.set(review.reviewer.id, review.reviewer.displayName)
  for (const request of asked) if (request.kind === 'user') names.set(request.user.id, request.user.displayName)
  const ruleUsers = config.type === 'rules' ? config.rules.flatMap((r) => (Array.isArray(r.users) ? (r.users as unknown[]) : [])).filter((u): u is string => typeof u === 'string') : []
  if (ruleUsers.some((id) => !names.has(id))) await nameMembers(gateway, spaceId, names)

  const current = latestCurrent(reviews)
  const verdict = judgeMergeRules(config, {
    status: cr.status,
    subject: cr.subject ?? '',
    hasDescription: hasText((cr.description as { nodes?: unknown } | undefined)?.nodes ?? []),
    outdated: cr.outdated,
    authorId: cr.createdBy.id,
    actorId: userId,
    reviews: current.map((r) => ({ reviewerId: r.reviewer.id, status: r.status })),
    nameOf: (id) => names.get(id) ?? id,
  })
  return {
    ruled: config.type === 'rules' && config.rules.length > 0,
    rules: verdict.checks.map((c) => ({ asks: c.asks, met: c.met, ...(c.reason ? { reason: c.reason } : {}) })),
    bypass: verdict.bypass,
    blockers: verdict.failures,
    cautions: cautions(cr, current, asked, verdict.failures),
  }
}

/** Each reviewer's newest review, when it was made against the change request's content as it is now. */
function latestCurrent(reviews: ChangeRequestReview[]): ChangeRequestReview[] {
  const newest = new Map<string, ChangeRequestReview>()
  for (const review of [...reviews].sort((a, b) => b.createdAt.localeCompare(a.createdAt))) if (!newest.has(review.reviewer.id)) newest.set(review.reviewer.id, review)
  return [...newest.values()].filter((r) => !r.outdated)
}

function cautions(cr: ChangeRequest, current: ChangeRequestReview[], asked: ChangeRequestRequestedReviewer[], blockers: string[]): string[] {
  const out: string[] = []
  if (cr.status === 'draft' && !blockers.some((b) => b.includes('draft'))) out.push('It is a draft: it was not submitted for review.')
  const reviewed = new Set(current.map((r) => r.reviewer.id))
  for (const request of asked) {
    if (request.kind === 'user' && !reviewed.has(request.user.id)) out.push(`${request.user.displayName} was asked to review it and has not reviewed this version.`)
  }
  for (const review of current) {
    const said = `${review.reviewer.displayName} asked for changes.`
    if (review.status === 'changes-requested' && !blockers.some((b) => b.includes(`${review.reviewer.displayName} asked for changes`))) out.push(said)
  }
  return out
}

/** The space's members' names, for rules naming users who have not reviewed or been asked. */
async function nameMembers(gateway: ApiGateway, spaceId: string, names: Map<string, string>) {
  const spaces = gateway.client.spaces
  for await (const entry of paginate((page) => spaces.listPermissionsAggregateInSpace(spaceId, { page, limit: 100 }).then((r) => r.data))) {
    if (!names.has(entry.user.id)) names.set(entry.user.id, entry.user.displayName)
  }
}
