import type { ChangeRequest } from '../store/change-requests'
import { OrganizationsRepository } from '../store/organizations'
import { ReviewsRepository, type ReviewRecord } from '../store/reviews'
import type { ServiceStore } from '../store/service-store'
import type { Space } from '../store/spaces'
import { UsersRepository } from '../store/users'
import { isOutdated } from './serializers/change-request'
import { isReviewOutdated } from './serializers/review'

/**
 * Merge rules (spec `MergeRule`) decide whether a change request may be merged. The space's rules
 * apply, or the organization's when the space inherits. Review rules count only current reviews: one
 * per reviewer (a later review supersedes), made against the change request's head as it is now. This
 * service runs no review agent and has no expression evaluator, so `require_agent_review` and `custom`
 * rules cannot pass; the message says why.
 */
interface StoredRule {
  rule?: unknown
  users?: unknown
  message?: unknown
}

type RulesConfiguration = { type: 'none' } | { type: 'rules'; rules: StoredRule[] }

function configuration(store: ServiceStore, space: Space): RulesConfiguration {
  const own = space.data.mergeRules as { type?: unknown; rules?: unknown }
  const source = own?.type === 'inherit' || own?.type === undefined ? orgRules(store, space.orgId) : own
  if (source?.type === 'rules' && Array.isArray(source.rules)) return { type: 'rules', rules: source.rules as StoredRule[] }
  return { type: 'none' }
}

function orgRules(store: ServiceStore, orgId: string): { type?: unknown; rules?: unknown } | undefined {
  return store.repo(OrganizationsRepository).get(orgId)?.data.mergeRules as { type?: unknown; rules?: unknown } | undefined
}

const listed = (rule: StoredRule, userId: string) => Array.isArray(rule.users) && rule.users.includes(userId)

/** True when a JSON document holds some non-blank text (its text lives in leaves' `text`). */
function hasText(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasText)
  if (!node || typeof node !== 'object') return false
  return Object.entries(node).some(([key, value]) => (key === 'text' && typeof value === 'string' ? value.trim() !== '' : hasText(value)))
}

const hasDescription = (cr: ChangeRequest) => hasText(cr.data.description?.nodes ?? [])

const ruleUsers = (rule: StoredRule): string[] => (Array.isArray(rule.users) ? rule.users.filter((u): u is string => typeof u === 'string') : [])

function names(store: ServiceStore, userIds: string[]): string {
  return userIds.map((id) => store.repo(UsersRepository).get(id)?.display_name ?? id).join(', ')
}

function reviewFailure(store: ServiceStore, current: ReviewRecord[], rule: StoredRule): string | undefined {
  const approvers = new Set(current.filter((review) => review.status === 'approved').map((review) => review.reviewerId))
  switch (rule.rule) {
    case 'require_at_least_one_review':
      return current.length === 0 ? 'the change request needs at least one review of its current content' : undefined
    case 'require_at_least_one_approved_review':
      return approvers.size === 0 ? 'the change request needs at least one approving review of its current content' : undefined
    case 'require_all_reviews_approved': {
      const against = current.filter((review) => review.status !== 'approved').map((review) => review.reviewerId)
      return against.length > 0 ? `every review must approve, and ${names(store, against)} asked for changes` : undefined
    }
    case 'require_specific_reviewers': {
      const missing = ruleUsers(rule).filter((id) => !approvers.has(id))
      return missing.length > 0 ? `it needs an approving review from ${names(store, missing)}` : undefined
    }
    case 'require_one_of_specific_reviewers': {
      const listedUsers = ruleUsers(rule)
      return listedUsers.length > 0 && !listedUsers.some((id) => approvers.has(id))
        ? `it needs an approving review from one of ${names(store, listedUsers)}`
        : undefined
    }
    case 'require_agent_review':
      return 'the rule require_agent_review needs a review by an agent, which this service does not run'
    default:
      return `the rule ${String(rule.rule)} is not one this service knows`
  }
}

function failure(store: ServiceStore, cr: ChangeRequest, current: ReviewRecord[], rule: StoredRule, userId: string): string | undefined {
  switch (rule.rule) {
    case 'allow_bypass':
      return undefined
    case 'require_change_request_subject':
      return cr.subject.trim() === '' ? 'the change request needs a subject' : undefined
    case 'require_change_request_description':
      return hasDescription(cr) ? undefined : 'the change request needs a description'
    case 'require_up_to_date_change_request':
      return isOutdated(store, cr) ? 'the change request must first be updated with the latest main content' : undefined
    case 'require_author_to_merge':
      return cr.createdBy === userId ? undefined : 'only the author of the change request may merge it'
    case 'custom':
      return typeof rule.message === 'string' && rule.message !== ''
        ? rule.message
        : 'a custom merge rule applies, and this service cannot evaluate custom expressions'
    default:
      return reviewFailure(store, current, rule)
  }
}

/** Why the user may not merge the change request under the space's merge rules; empty when they may. */
export function mergeRuleFailures(store: ServiceStore, space: Space, cr: ChangeRequest, userId: string): string[] {
  const config = configuration(store, space)
  if (config.type === 'none') return []
  if (config.rules.some((rule) => rule.rule === 'allow_bypass' && listed(rule, userId))) return []
  const current = store
    .repo(ReviewsRepository)
    .list(cr.id)
    .filter((review) => !isReviewOutdated(review, cr))
  return config.rules.map((rule) => failure(store, cr, current, rule, userId)).filter((message): message is string => message !== undefined)
}
