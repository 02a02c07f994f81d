import { useEffect, useState, type FormEvent } from 'react'
import type { SessionInfo, Settings } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ActionFeedback, DoneNotice, ErrorNotice, Loading } from '../components/Notice'
import { saying, useAction, useLoad } from '../hooks'

/** The fields the writer changed since the settings were read: Save sends only those, never a stale copy of the rest. */
function changedFields(base: Settings, form: Settings): Partial<Settings> {
  return Object.fromEntries((Object.keys(form) as Array<keyof Settings>).filter((key) => form[key] !== base[key]).map((key) => [key, form[key]])) as Partial<Settings>
}

export function SettingsScreen({ session, onSession, paused }: { session: SessionInfo; onSession: (session: SessionInfo) => void; paused: boolean | undefined }) {
  const bridge = useBridge()
  const loaded = useLoad(() => bridge.getSettings(), [])
  /** The settings as last read or saved; the form is compared with it. */
  const [base, setBase] = useState<Settings>()
  const [form, setForm] = useState<Settings>()
  const [saved, setSaved] = useState(false)
  const action = useAction()

  useEffect(() => {
    if (loaded.data) {
      setBase(loaded.data)
      setForm(loaded.data)
    }
  }, [loaded.data])

  // Pause and Resume in the header (or the tray) change the setting meanwhile: the form follows unless the writer touched the box.
  useEffect(() => {
    if (paused === undefined) return
    setBase((b) => {
      if (!b || b.paused === paused) return b
      setForm((f) => (f && f.paused === b.paused ? { ...f, paused } : f))
      return { ...b, paused }
    })
  }, [paused])

  const save = (event: FormEvent) => {
    event.preventDefault()
    if (!form || !base) return
    setSaved(false)
    void action.run('save', async () => {
      const next = await bridge.updateSettings(changedFields(base, form))
      setBase(next)
      setForm(next)
      setSaved(true)
    })
  }
  /**
   * The desktop app opens the folder in the file manager. A browser tab cannot open a folder: it copies
   * the folder's path (and says so), or shows the path when the clipboard is not allowed.
   */
  const openFolder = () => {
    const workspace = base?.workspace ?? ''
    if (!bridge.inBrowser) return void action.run('folder', saying('Could not open the workspace folder', () => bridge.openWorkspaceFolder()), 'Opened the workspace folder in your file manager.')
    void action.run(
      'folder',
      () => navigator.clipboard.writeText(workspace).then(() => true, () => false),
      (copied) => (copied ? `Copied the path ${workspace}: your browser cannot open folders. Paste it in your file manager.` : `Your browser cannot open folders: the workspace folder is ${workspace}.`),
    )
  }
  /** Opening the folder tells how it went beside its button. */
  const folderLast = action.last === 'folder'
  const set = <K extends keyof Settings>(key: K, value: Settings[K]) => {
    setSaved(false)
    setForm((f) => (f ? { ...f, [key]: value } : f))
  }

  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title" tabIndex={-1}>
        Settings
      </h1>
      <ErrorNotice message={loaded.error ?? (folderLast ? undefined : action.error)} />
      <DoneNotice message={folderLast ? undefined : action.done} />
      {!form ? (
        <Loading what="settings" />
      ) : (
        <form className="card settings" onSubmit={save}>
          <label htmlFor="workspace">Workspace folder</label>
          <input id="workspace" type="text" required value={form.workspace} onChange={(e) => set('workspace', e.target.value)} aria-describedby="workspace-help" />
          <p id="workspace-help" className="hint">
            A full path, from the top of the disk. Each organization gets a folder in it, each space a folder in that.
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
              {action.busy === 'save' ? 'Saving…' : 'Save settings'}
            </button>
            <button type="button" disabled={action.busy !== undefined} onClick={openFolder}>
              {action.busy === 'folder' ? 'Opening…' : 'Open workspace folder'}
            </button>
            {saved ? (
              <span role="status" className="ok-text">
                Saved.
              </span>
            ) : null}
          </div>
          <ActionFeedback done={folderLast ? action.done : undefined} error={folderLast ? action.error : undefined} />
        </form>
      )}
      <section className="card" aria-labelledby="account-title">
        <h2 id="account-title">Account</h2>
        <p>
          Signed in as <strong>{session.user?.displayName ?? 'unknown'}</strong>
          {session.user?.email ? ` (${session.user.email})` : ''} to <code>{session.endpoint}</code>
          {session.demo ? ', the demo service on this computer' : ''}.
        </p>
        <button type="button" disabled={action.busy !== undefined} onClick={() => void action.run('sign-out', async () => onSession(await bridge.signOut()))}>
          {action.busy === 'sign-out' ? 'Signing out…' : 'Sign out'}
        </button>
      </section>
    </section>
  )
}
