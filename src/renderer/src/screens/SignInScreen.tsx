import { useState, type FormEvent } from 'react'
import type { SessionInfo } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ErrorNotice } from '../components/Notice'
import { useAction } from '../hooks'

export function SignInScreen({ onSignedIn }: { onSignedIn: (session: SessionInfo) => void }) {
  const bridge = useBridge()
  const [endpoint, setEndpoint] = useState('https://api.gitbook.com')
  const [token, setToken] = useState('')
  const action = useAction()

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void action.run('sign-in', async () => onSignedIn(await bridge.signIn({ endpoint: endpoint.trim(), token: token.trim() })))
  }

  return (
    <main className="centered">
      <section className="card sign-in" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in to Quire</h1>
        <p className="muted">Quire mirrors your documentation spaces into local markdown files and keeps them in sync.</p>
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
      </section>
    </main>
  )
}
