import { useEffect, useState } from 'react'
import { ago } from '../../../shared/status-words'

/** The current time, ticking every `everyMs`: relative times ("4 min ago") stay true while the window is open. */
export function useNow(everyMs = 30_000): Date {
  const [now, setNow] = useState(() => new Date())
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), everyMs)
    return () => clearInterval(timer)
  }, [everyMs])
  return now
}

export function absoluteTime(iso: string): string {
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString()
}

/** A relative time ("4 min ago") with the absolute one on hover (title) and in the markup (datetime). */
export function RelativeTime({ iso, fallback = 'never' }: { iso: string | undefined; fallback?: string }) {
  const now = useNow()
  if (!iso) return <span>{fallback}</span>
  return (
    <time dateTime={iso} title={absoluteTime(iso)}>
      {ago(iso, now) ?? iso}
    </time>
  )
}
