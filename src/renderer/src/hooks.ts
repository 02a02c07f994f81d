import { useCallback, useEffect, useRef, useState } from 'react'

export interface Loaded<T> {
  data: T | undefined
  error: string | undefined
  loading: boolean
  reload: () => void
}

export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  // Electron wraps errors thrown in the main process; the user needs only the last part.
  return message.replace(/^Error invoking remote method '[^']+': (Error: )?/, '')
}

/** Loads `load()` on mount and whenever one of `deps` changes; the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T>()
  const [error, setError] = useState<string>()
  const [loading, setLoading] = useState(true)
  const [tick, setTick] = useState(0)
  const loadRef = useRef(load)
  loadRef.current = load
  useEffect(() => {
    let live = true
    setLoading(true)
    loadRef.current().then(
      (value) => {
        if (!live) return
        setData(value)
        setError(undefined)
        setLoading(false)
      },
      (e: unknown) => {
        if (!live) return
        setError(errorText(e))
        setLoading(false)
      },
    )
    return () => {
      live = false
    }
  }, [tick, ...deps])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { data, error, loading, reload }
}

/** Runs one action at a time, with its error kept for display. */
export function useAction(): { busy: string | undefined; error: string | undefined; run: (name: string, action: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState<string>()
  const [error, setError] = useState<string>()
  const run = useCallback(async (name: string, action: () => Promise<unknown>) => {
    setBusy(name)
    setError(undefined)
    try {
      await action()
      return true
    } catch (e) {
      setError(errorText(e))
      return false
    } finally {
      setBusy(undefined)
    }
  }, [])
  return { busy, error, run, clear: () => setError(undefined) }
}

export function formatTime(iso: string | undefined): string {
  if (!iso) return 'never'
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString()
}
