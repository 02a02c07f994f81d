import path from 'node:path'
import { RotatingLogFile } from '../app/rotating-log-file'

export interface ShellLog {
  (message: string): void
  /** Resolves once every line logged so far is on disk (or given up on): the app awaits it before it quits. */
  flushed(): Promise<void>
}

/**
 * The main process's own log (startup, backend restarts, update checks, refused requests), appended to
 * `<logs>/main.log` without blocking: writes are chained, never synchronous; the file rotates. Tokens never reach it:
 * nothing here is given one.
 */
export function shellLog(dir: string, echo: (line: string) => void = (line) => console.error(line)): ShellLog {
  const file = new RotatingLogFile(path.join(dir, 'main.log'))
  let chain: Promise<unknown> = Promise.resolve()
  const log = (message: string) => {
    const line = `${new Date().toISOString()} ${message}`
    echo(`quire: ${message}`)
    chain = chain
      .then(() => file.append(`${line}\n`))
      // A log that cannot be written must not take the app down; the line still went to stderr.
      .catch(() => undefined)
  }
  return Object.assign(log, { flushed: () => chain.then(() => undefined) })
}
