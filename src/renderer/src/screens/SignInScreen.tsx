import { useState, type FormEvent } from 'react'
import type { SessionInfo } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ErrorNotice } from '../components/Notice'
import { useAction } from '../hooks'

/**
 * Sign in, first or again: after the service refused the saved token, `reason` says why, `endpoint`
 * is the one signed in to, and `onCancel` goes back to the window (which keeps saying signed out).
 */
export function SignInScreen({ onSignedIn, endpoint: known, reason, onCancel }: { onSignedIn: (session: SessionInfo) => void; endpoint?: string; reason?: string; onCancel?: () => void }) {
  const bridge = useBridge()
  const [endpoint, setEndpoint] = useState(known ?? 'https://api.gitbook.com')
  const [token, setToken] = useState('')
  const action = useAction()

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void action.run('sign-in', async () => onSignedIn(await bridge.signIn({ endpoint: endpoint.trim(), token: token.trim() })))
  }

  return (
    <main className="centered">
      <section className="card sign-in" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">{onCancel ? 'Sign in again' : 'Sign in to Quire'}</h1>
        {reason ? (
          <p className="notice notice-warn">Nothing syncs until you sign in again: {reason}. Your local edits are kept and sent once you are signed in.</p>
        ) : (
          <p className="muted">Quire mirrors your documentation spaces into local markdown files and keeps them in sync.</p>
        )}
        <form onSubmit={submit}>
          <label htmlFor="endpoint">Endpoint</label>
          <input id="endpoint" name="endpoint" type="url" required value={endpoint} onChange={(e) => setEndpoint(e.target.value)} autoComplete="url" />
          <label htmlFor="token">API token</label>
          <input id="token" name="token" type="password" required value={token} onChange={(e) => setToken(e.target.value)} autoComplete="off" aria-describedby="token-help" />
          <p id="token-help" className="hint">
            A personal access token from your account settings. It is kept in the system keychain, never in plain logs.
          </p>
          <button type="submit" className="primary" disabled={action.busy !== undefined}>
            {action.busy === 'sign-in' ? 'Signing in…' : 'Sign in'}
          </button>
        </form>
        <div className="divider" role="separator">
          or
        </div>
        <button
          type="button"
          disabled={action.busy !== undefined}
          onClick={() => void action.run('demo', async () => onSignedIn(await bridge.useDemoService()))}
          aria-describedby="demo-help"
        >
          {action.busy === 'demo' ? 'Starting the demo service…' : 'Use the demo service'}
        </button>
        <p id="demo-help" className="hint">
          Starts a documentation service on this computer with a demo organization, so you can try Quire without an account.
        </p>
        <ErrorNotice message={action.error} />
        {onCancel ? (
          <button type="button" className="link-button" onClick={onCancel}>
            Back to Quire
          </button>
        ) : null}
      </section>
    </main>
  )
}
