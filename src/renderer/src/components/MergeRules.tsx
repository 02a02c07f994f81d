import type { MergeCheck } from '../../../shared/contract'

/**
 * The space's merge rules as they stand for one change request: each rule with Met or Not met and why,
 * then what a merge would skip though no rule stops it (a draft, a review asked for and not given, a
 * request for changes). The service judges the same rules again at merge time.
 */
export function MergeRules({ check, label }: { check: MergeCheck; label: string }) {
  return (
    <div className="merge-rules" aria-label={label} role="group">
      {check.ruled ? (
        <ul className="merge-rule-list">
          {check.rules.map((rule) => (
            <li key={rule.asks} className="small">
              <span className={`badge ${rule.met ? 'badge-ok' : 'badge-warn'}`}>{rule.met ? 'Met' : 'Not met'}</span> {rule.asks}
              {rule.reason ? <span className="muted"> — {rule.reason}</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="small muted">No merge rules in this space: it may be merged without review.</p>
      )}
      {check.bypass ? <p className="small">You may merge it anyway: the rules let you bypass them.</p> : null}
      {check.cautions.length > 0 ? (
        <ul className="merge-cautions">
          {check.cautions.map((caution) => (
            <li key={caution} className="small">
              {caution}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
