import { useEffect, useState } from 'react'
import type { ActivityEntry } from '../../../shared/contract'
import { useBridge } from '../bridge'
import { ErrorNotice, Loading } from '../components/Notice'
import { RelativeTime } from '../components/Time'
import { errorText } from '../hooks'

export function ActivityScreen() {
  const bridge = useBridge()
  const [entries, setEntries] = useState<ActivityEntry[]>()
  const [error, setError] = useState<string>()

  useEffect(() => {
    let live = true
    const fresh: ActivityEntry[] = []
    // Entries arriving while the list loads are kept and added after it.
    const off = bridge.onEvent((event) => {
      if (event.type !== 'activity') return
      if (!live) return
      setEntries((current) => (current ? [...current, event.entry] : (fresh.push(event.entry), current)))
    })
    bridge.listActivity().then(
      (list) => {
        if (!live) return
        const known = new Set(list.map((e) => `${e.at}\u0000${e.message}`))
        setEntries([...list, ...fresh.filter((e) => !known.has(`${e.at}\u0000${e.message}`))])
      },
      (e: unknown) => live && setError(errorText(e)),
    )
    return () => {
      live = false
      off()
    }
  }, [bridge])

  return (
    <section aria-labelledby="activity-title">
      <h1 id="activity-title" tabIndex={-1}>
        Activity
      </h1>
      <ErrorNotice message={error} />
      {!entries && !error ? <Loading what="activity" /> : null}
      {entries?.length === 0 ? <p>Nothing has happened yet.</p> : null}
      <ol className="activity" reversed aria-live="polite">
        {[...(entries ?? [])].reverse().map((entry, index) => (
          <li key={`${entry.at}-${index}`} className={`entry-${entry.level}`}>
            <span className={`badge level-${entry.level}`}>{entry.level}</span> <RelativeTime iso={entry.at} /> <span>{entry.message}</span>
          </li>
        ))}
      </ol>
    </section>
  )
}
