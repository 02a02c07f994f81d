/**
 * A network that loses the answer of the next content write (`POST .../change-requests/:id/content`),
 * once, either way a lost answer can go: `before`, the connection drops on the way and the service never
 * sees the request; `after`, the service applies the batch and its answer never reaches the writer (both
 * play out as a timeout). Either way the writer's outbox keeps the batch `sending`, to be reconciled.
 */
export class LossyNetwork {
  /** What the next content write meets; back to `through` once it met it. */
  next: 'through' | 'before' | 'after' = 'through'
  contentPosts = 0

  fetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const method = (init?.method ?? 'GET').toUpperCase()
    if (method !== 'POST' || !/\/change-requests\/[^/]+\/content/.test(url)) return fetch(input, init)
    this.contentPosts++
    const mode = this.next
    this.next = 'through'
    if (mode === 'through') return fetch(input, init)
    if (mode === 'after') {
      const applied = await fetch(input, init)
      await applied.arrayBuffer()
    }
    // The answer never comes (a timeout): a connection reset before any answer is tried again at once by
    // the outbox (stale-connection.test.ts), which would reconcile before anyone else could act.
    throw new DOMException('The operation was aborted due to timeout', 'TimeoutError')
  }
}
