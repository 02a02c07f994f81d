import type { ChangeRequest } from '../store/change-requests'
import { OrganizationsRepository } from '../store/organizations'
import type { ServiceStore } from '../store/service-store'
import type { Space } from '../store/spaces'
import { isOutdated } from './serializers/change-request'

/**
 * Merge rules (spec `MergeRule`) decide whether a change request may be merged. The space's rules
 * apply, or the organization's when the space inherits. This service records no reviews and has no
 * expression evaluator, so rules that need them cannot pass; the message says why.
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

function failure(store: ServiceStore, cr: ChangeRequest, rule: StoredRule, userId: string): string | undefined {
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
      return `the rule ${String(rule.rule)} needs reviews, which this service does not record`
  }
}

/** Why the user may not merge the change request under the space's merge rules; empty when they may. */
export function mergeRuleFailures(store: ServiceStore, space: Space, cr: ChangeRequest, userId: string): string[] {
  const config = configuration(store, space)
  if (config.type === 'none') return []
  if (config.rules.some((rule) => rule.rule === 'allow_bypass' && listed(rule, userId))) return []
  return config.rules.map((rule) => failure(store, cr, rule, userId)).filter((message): message is string => message !== undefined)
}
