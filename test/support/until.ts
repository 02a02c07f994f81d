/**
 * Polls `probe` until it answers something other than undefined: tests wait on conditions, never on
 * fixed sleeps. The deadline is generous (the suite must pass with the CPU busy); on giving up, the
 * error names what was awaited.
 */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string | (() => string), timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
