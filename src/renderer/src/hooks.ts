import { useCallback, useEffect, useRef, useState } from 'react'

export interface Loaded<T> {
  data: T | undefined
  error: string | undefined
  loading: boolean
  reload: () => void
}

export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  // Electron wraps errors thrown in the main process, and `quire serve` names the channel ("openExternal
  // failed: ..."): the user needs only the last part.
  return message.replace(/^Error invoking remote method '[^']+': (Error: )?/, '').replace(/^[a-z][A-Za-z]+ failed: /, '')
}

/** Runs `action`; its failure reads "<what>: <reason>", so an error shown alone still says what did not happen. */
export function saying<T>(what: string, action: () => Promise<T>): () => Promise<T> {
  return async () => {
    try {
      return await action()
    } catch (error) {
      throw new Error(`${what}: ${errorText(error)}`)
    }
  }
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

export interface Action {
  /** The name of the action running now. */
  busy: string | undefined
  /** The last action's failure, kept until the next run. */
  error: string | undefined
  /** What the last action did, shown for a few seconds (every button says it worked, not only when it failed). */
  done: string | undefined
  /** The name of the action `done` or `error` is about, so its feedback can be shown beside its button. */
  last: string | undefined
  run: (name: string, action: () => Promise<unknown>, done?: string | ((result: unknown) => string | undefined)) => Promise<boolean>
  clear: () => void
}

const DONE_SHOWN_MS = 6_000

/** Runs one action at a time: busy while it runs, then done (for a while) or failed (kept). */
export function useAction(): Action {
  const [busy, setBusy] = useState<string>()
  const [error, setError] = useState<string>()
  const [done, setDone] = useState<string>()
  const [last, setLast] = useState<string>()
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  const run = useCallback(async (name: string, action: () => Promise<unknown>, doneText?: string | ((result: unknown) => string | undefined)) => {
    setBusy(name)
    setLast(name)
    setError(undefined)
    setDone(undefined)
    clearTimeout(timer.current)
    try {
      const result = await action()
      const text = typeof doneText === 'function' ? doneText(result) : doneText
      if (text) {
        setDone(text)
        timer.current = setTimeout(() => setDone(undefined), DONE_SHOWN_MS)
      }
      return true
    } catch (e) {
      setError(errorText(e))
      return false
    } finally {
      setBusy(undefined)
    }
  }, [])
  const clear = useCallback(() => {
    setError(undefined)
    setDone(undefined)
  }, [])
  return { busy, error, done, last, run, clear }
}
