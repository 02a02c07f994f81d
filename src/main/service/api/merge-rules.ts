import { judgeMergeRules, rulesInForce } from '../../content'
import type { ChangeRequest } from '../store/change-requests'
import { OrganizationsRepository } from '../store/organizations'
import { ReviewsRepository } from '../store/reviews'
import type { ServiceStore } from '../store/service-store'
import type { Space } from '../store/spaces'
import { UsersRepository } from '../store/users'
import { isOutdated } from './serializers/change-request'
import { isReviewOutdated } from './serializers/review'

/**
 * Merge rules (spec `MergeRule`) decide whether a change request may be merged: the space's rules, or
 * the organization's when the space inherits. The judging is the content model's (`judgeMergeRules`),
 * the same one Quire's app and CLI show before they ask; this gathers its facts from the store.
 */

/** True when a JSON document holds some non-blank text (its text lives in leaves' `text`). */
function hasText(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasText)
  if (!node || typeof node !== 'object') return false
  return Object.entries(node).some(([key, value]) => (key === 'text' && typeof value === 'string' ? value.trim() !== '' : hasText(value)))
}

/** Why the user may not merge the change request under the space's merge rules; empty when they may. */
export function mergeRuleFailures(store: ServiceStore, space: Space, cr: ChangeRequest, userId: string): string[] {
  const config = rulesInForce(space.data.mergeRules as { type?: unknown }, () => store.repo(OrganizationsRepository).get(space.orgId)?.data.mergeRules as { type?: unknown } | undefined)
  if (config.type === 'none') return []
  const reviews = store
    .repo(ReviewsRepository)
    .list(cr.id)
    .filter((review) => !isReviewOutdated(review, cr))
    .map((review) => ({ reviewerId: review.reviewerId, status: review.status }))
  return judgeMergeRules(config, {
    status: cr.status,
    subject: cr.subject,
    hasDescription: hasText(cr.data.description?.nodes ?? []),
    outdated: isOutdated(store, cr),
    authorId: cr.createdBy,
    actorId: userId,
    reviews,
    nameOf: (id) => store.repo(UsersRepository).get(id)?.display_name ?? id,
  }).failures
}
