import { useEffect, useState, type FormEvent } from 'react'
import type { SessionInfo, Settings } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ErrorNotice, Loading } from '../components/Notice'
import { useAction, useLoad } from '../hooks'

export function SettingsScreen({ session, onSession }: { session: SessionInfo; onSession: (session: SessionInfo) => void }) {
  const bridge = useBridge()
  const loaded = useLoad(() => bridge.getSettings(), [])
  const [form, setForm] = useState<Settings>()
  const [saved, setSaved] = useState(false)
  const action = useAction()

  useEffect(() => {
    if (loaded.data) setForm(loaded.data)
  }, [loaded.data])

  const save = (event: FormEvent) => {
    event.preventDefault()
    if (!form) return
    setSaved(false)
    void action.run('save', async () => {
      setForm(await bridge.updateSettings(form))
      setSaved(true)
    })
  }
  const set = <K extends keyof Settings>(key: K, value: Settings[K]) => {
    setSaved(false)
    setForm((f) => (f ? { ...f, [key]: value } : f))
  }

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title" tabIndex={-1}>
        Settings
      </h1>
      <ErrorNotice message={loaded.error ?? action.error} />
      {!form ? (
        <Loading what="settings" />
      ) : (
        <form className="card settings" onSubmit={save}>
          <label htmlFor="workspace">Workspace folder</label>
          <input id="workspace" type="text" required value={form.workspace} onChange={(e) => set('workspace', e.target.value)} aria-describedby="workspace-help" />
          <p id="workspace-help" className="hint">
            An absolute path. Each organization gets a folder in it, each space a folder in that.
          </p>
          <label htmlFor="interval">Sync every (seconds)</label>
          <input id="interval" type="number" min={10} max={86400} step={1} required value={form.intervalSeconds} onChange={(e) => set('intervalSeconds', Number(e.target.value))} />
          <div className="check">
            <input id="paused" type="checkbox" checked={form.paused} onChange={(e) => set('paused', e.target.checked)} />
            <label htmlFor="paused">Pause syncing</label>
          </div>
          <div className="check">
            <input id="start-at-login" type="checkbox" checked={form.startAtLogin} onChange={(e) => set('startAtLogin', e.target.checked)} />
            <label htmlFor="start-at-login">Start Quire at login</label>
          </div>
          <div className="check">
            <input id="notifications" type="checkbox" checked={form.notifications} onChange={(e) => set('notifications', e.target.checked)} />
            <label htmlFor="notifications">Show notifications</label>
          </div>
          <div className="actions">
            <button type="submit" className="primary" disabled={action.busy !== undefined}>
              Save settings
            </button>
            <button type="button" onClick={() => void action.run('folder', () => bridge.openWorkspaceFolder())}>
              Open workspace folder
            </button>
            {saved ? (
              <span role="status" className="ok-text">
                Saved.
              </span>
            ) : null}
          </div>
        </form>
      )}
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <p>
          Signed in as <strong>{session.user?.displayName ?? 'unknown'}</strong>
          {session.user?.email ? ` (${session.user.email})` : ''} to <code>{session.endpoint}</code>
          {session.demo ? ', the demo service on this computer' : ''}.
        </p>
        <button type="button" onClick={() => void action.run('sign-out', async () => onSession(await bridge.signOut()))}>
          Sign out
        </button>
      </section>
    </section>
  )
}
