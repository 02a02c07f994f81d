/**
 * Merge rules (spec `MergeRule`), judged the same way by the local service (which refuses the merge)
 * and by Quire's app and CLI (which show each rule and stop before asking). Pure: the caller gathers
 * the facts, from its store or from the API. Review rules count only current reviews: one per reviewer
 * (a later review supersedes), made against the change request's head as it is now. No review agent
 * runs and no custom expression is evaluated, so `require_agent_review` and `custom` cannot pass; the
 * reason says why.
 *
 * A draft is not up for review: while any rule asks for reviews, a draft cannot be merged (submitting it
 * is what asks for them). Without rules a draft merges, and `mergeCautions` says what was skipped.
 */

export interface MergeRule {
  rule?: unknown
  users?: unknown
  message?: unknown
}

/** The rules in force for a space: its own, or its organization's when it inherits. */
export type MergeRulesInForce = { type: 'none' } | { type: 'rules'; rules: MergeRule[] }

type Configuration = { type?: unknown; rules?: unknown } | undefined

/** The space's own configuration, or the organization's when the space inherits (or says nothing). */
export function rulesInForce(space: Configuration, organization: () => Configuration): MergeRulesInForce {
  const source = space?.type === 'inherit' || space?.type === undefined ? organization() : space
  if (source?.type === 'rules' && Array.isArray(source.rules)) return { type: 'rules', rules: source.rules as MergeRule[] }
  return { type: 'none' }
}

export interface MergeFacts {
  status: string
  subject: string
  hasDescription: boolean
  /** Behind main: main moved since the change request was last updated from it. */
  outdated: boolean
  authorId: string
  /** Who would merge. */
  actorId: string
  /** Reviews of the current content (outdated ones left out). */
  reviews: Array<{ reviewerId: string; status: string }>
  nameOf: (userId: string) => string
}

/** One rule as a person reads it, and whether the change request meets it now. */
export interface MergeRuleCheck {
  rule: string
  /** What the rule asks, in words ("An approving review from Rae Reviewer"). */
  asks: string
  met: boolean
  /** Why it is not met, in words that finish "cannot be merged: …". */
  reason?: string
}

export interface MergeRulesVerdict {
  checks: MergeRuleCheck[]
  /** The actor is listed in an `allow_bypass` rule: nothing blocks them. */
  bypass: boolean
  /** Reasons the merge is refused (empty: it may be merged). */
  failures: string[]
}

const REVIEW_RULES: ReadonlySet<string> = new Set([
  'require_at_least_one_review',
  'require_at_least_one_approved_review',
  'require_all_reviews_approved',
  'require_specific_reviewers',
  'require_one_of_specific_reviewers',
  'require_agent_review',
])

const ruleUsers = (rule: MergeRule): string[] => (Array.isArray(rule.users) ? rule.users.filter((u): u is string => typeof u === 'string') : [])

function names(facts: MergeFacts, userIds: string[]): string {
  return userIds.map(facts.nameOf).join(', ')
}

function check(facts: MergeFacts, rule: MergeRule): MergeRuleCheck {
  const name = String(rule.rule)
  const done = (asks: string, reason: string | undefined): MergeRuleCheck => ({ rule: name, asks, met: reason === undefined, ...(reason ? { reason } : {}) })
  const approvers = new Set(facts.reviews.filter((r) => r.status === 'approved').map((r) => r.reviewerId))
  switch (rule.rule) {
    case 'require_change_request_subject':
      return done('A subject', facts.subject.trim() === '' ? 'the change request needs a subject' : undefined)
    case 'require_change_request_description':
      return done('A description', facts.hasDescription ? undefined : 'the change request needs a description')
    case 'require_up_to_date_change_request':
      return done('Up to date with main', facts.outdated ? 'the change request must first be updated with the latest main content' : undefined)
    case 'require_author_to_merge':
      return done('Merged by its author', facts.authorId === facts.actorId ? undefined : 'only the author of the change request may merge it')
    case 'require_at_least_one_review':
      return done('At least one review', facts.reviews.length === 0 ? 'the change request needs at least one review of its current content' : undefined)
    case 'require_at_least_one_approved_review':
      return done('At least one approving review', approvers.size === 0 ? 'the change request needs at least one approving review of its current content' : undefined)
    case 'require_all_reviews_approved': {
      const against = [...new Set(facts.reviews.filter((r) => r.status !== 'approved').map((r) => r.reviewerId))]
      return done('Every review approves', against.length > 0 ? `every review must approve, and ${names(facts, against)} asked for changes` : undefined)
    }
    case 'require_specific_reviewers': {
      const users = ruleUsers(rule)
      const missing = users.filter((id) => !approvers.has(id))
      return done(`An approving review from ${names(facts, users)}`, missing.length > 0 ? `it needs an approving review from ${names(facts, missing)}` : undefined)
    }
    case 'require_one_of_specific_reviewers': {
      const users = ruleUsers(rule)
      const fails = users.length > 0 && !users.some((id) => approvers.has(id))
      return done(`An approving review from one of ${names(facts, users)}`, fails ? `it needs an approving review from one of ${names(facts, users)}` : undefined)
    }
    case 'require_agent_review':
      return done('A review by an agent', 'the rule require_agent_review needs a review by an agent, which this service does not run')
    case 'custom':
      return done(
        typeof rule.message === 'string' && rule.message !== '' ? rule.message : 'A custom rule',
        typeof rule.message === 'string' && rule.message !== '' ? rule.message : 'a custom merge rule applies, and this service cannot evaluate custom expressions',
      )
    default:
      return done(`The rule ${name}`, `the rule ${name} is not one this service knows`)
  }
}

/** Judges the rules in force for one change request and one actor. */
export function judgeMergeRules(config: MergeRulesInForce, facts: MergeFacts): MergeRulesVerdict {
  if (config.type === 'none') return { checks: [], bypass: false, failures: [] }
  const bypass = config.rules.some((rule) => rule.rule === 'allow_bypass' && ruleUsers(rule).includes(facts.actorId))
  const checks: MergeRuleCheck[] = []
  if (facts.status === 'draft' && config.rules.some((rule) => REVIEW_RULES.has(String(rule.rule)))) {
    checks.push({ rule: 'submitted_for_review', asks: 'Submitted for review', met: false, reason: 'it is a draft: submit it for review first' })
  }
  for (const rule of config.rules) if (rule.rule !== 'allow_bypass') checks.push(check(facts, rule))
  const failures = bypass ? [] : checks.filter((c) => !c.met).map((c) => c.reason!)
  return { checks, bypass, failures }
}
