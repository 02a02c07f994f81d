import { createHash } from 'node:crypto'
import type { RestartableService } from './restartable-service'

/**
 * The network between a writer's Quire and the service, misbehaving on purpose, for the randomized
 * sync-up test. Every fault is drawn from the sequence's seed and the request's shape and rank (the n-th
 * `POST .../content` of the sequence, ids blanked), not from the order concurrent requests happen to
 * start in, so a failing seed draws the same faults when replayed.
 *
 * Faults: 429 and 503 answered before the service sees the request; answers lost after the service acted
 * (connection reset, process killed, or the service stopped right after acting); response bodies cut
 * mid-read (`TypeError: terminated`) after the service acted; the service stopped before a write, so the
 * client meets a real refused connection (it stays down until the generator starts it again); the
 * writer's change request moved by someone else just before a write; during sync down passes, a save by
 * the writer right after a page's content arrived (in place, or by a rename over the file); and, when the
 * generator asks (`loseNext`), the answer of the next matching write lost.
 */
export interface NetworkHooks {
  /** Someone else moves the head of the writer's change request (an edit in it, an update from main). */
  moveHead(): Promise<string | undefined>
  /**
   * The writer saves a page while a pass downloads `pageId` (called with the answer in hand): in place, or
   * as many editors do, a temp file written beside it and renamed over it.
   */
  saveDuringPass(pageId: string, delayMs: number, how: 'in-place' | 'rename'): void
  /** Before every request of the writer's Quire (to look at its outbox between any two of its steps). */
  beforeRequest?(): void
}

export type FaultKind = 'rate-limited' | 'unavailable' | 'lost-answer' | 'killed' | 'cut-body' | 'refused' | 'stopped-after' | 'head-moved' | 'save-during-pass' | 'answer-lost-as-drawn'

/** A lost answer the generator asks for: the next write whose shape matches, acted on by the service or not. */
export interface ForcedLoss {
  shape: RegExp
  applied: boolean
  /** Set once it struck. */
  hit?: boolean
}

export class FuzzNetwork {
  on = true
  killed = false
  /** Set while a sync down pass runs. */
  passing = false
  /** The next matching write loses its answer (a draw of the generator, besides the faults drawn per request). */
  loseNext?: ForcedLoss
  /** What was injected, for the failure message. */
  readonly events: string[] = []
  private readonly ranks = new Map<string, number>()

  constructor(
    private readonly seed: number,
    private readonly service: RestartableService,
    private readonly hooks: NetworkHooks,
  ) {}

  fetch: typeof fetch = async (input, init) => {
    if (this.killed) throw new TypeError('fetch failed', { cause: Object.assign(new Error('the process was killed'), { code: 'ECONNREFUSED' }) })
    this.hooks.beforeRequest?.()
    if (!this.on || !this.service.running) return fetch(input, init)
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    const method = (init?.method ?? 'GET').toUpperCase()
    const shape = `${method} ${url.pathname.replace(/\/[^/]*[0-9A-Z_][^/]*(?=\/|$)/g, '/:')}`
    const rank = (this.ranks.get(shape) ?? 0) + 1
    this.ranks.set(shape, rank)
    const roll = rollOf(this.seed, shape, rank)
    const note = (kind: FaultKind, extra = '') => this.events.push(`${kind} ${shape}#${rank}${extra}`)
    const lost = this.loseNext
    if (method !== 'GET' && lost && !lost.hit && lost.shape.test(shape)) {
      lost.hit = true
      note('answer-lost-as-drawn', lost.applied ? ' (applied)' : ' (never arrived)')
      if (lost.applied) await (await fetch(input, init)).body?.cancel()
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) })
    }
    const error = (status: number, message: string) =>
      new Response(JSON.stringify({ error: { code: status, message } }), { status, headers: { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '0' } : {}) } })

    if (roll < 0.04) {
      note('rate-limited')
      return error(429, 'rate limited')
    }
    if (roll < 0.06) {
      note('unavailable')
      return error(503, 'unavailable')
    }
    if (method === 'GET') {
      const response = await fetch(input, init)
      if (roll < 0.09) {
        note('cut-body')
        return cutBody(response)
      }
      const page = /\/page\/([^/]+)$/.exec(url.pathname)?.[1]
      if (this.passing && page && roll < 0.4) {
        const delayMs = [0, 1, 2, 4, 8][Math.floor(rollOf(this.seed, `${shape}:delay`, rank) * 5)]
        const how = rollOf(this.seed, `${shape}:how`, rank) < 0.5 ? 'rename' : 'in-place'
        note('save-during-pass', ` +${delayMs}ms ${how}`)
        this.hooks.saveDuringPass(decodeURIComponent(page), delayMs, how)
      }
      return response
    }
    if (roll < 0.1) {
      const moved = await this.hooks.moveHead()
      if (moved) note('head-moved', ` (${moved})`)
      return fetch(input, init)
    }
    if (roll < 0.14) {
      note('refused')
      await this.service.stop()
      return fetch(input, init) // a real refused connection
    }
    const response = await fetch(input, init)
    if (roll < 0.18) {
      note('cut-body')
      return cutBody(response)
    }
    if (roll < 0.21) {
      note('lost-answer')
      await response.body?.cancel()
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) })
    }
    if (roll < 0.23) {
      // The service acted and went down before its answer left: the client meets it stopped.
      note('stopped-after')
      await response.body?.cancel()
      await this.service.stop()
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) })
    }
    if (roll < 0.25) {
      // The process dies right after the service acted: nothing of the answer is recorded.
      note('killed')
      await response.body?.cancel()
      this.killed = true
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('killed'), { code: 'ECONNRESET' }) })
    }
    return response
  }
}

/** A number in [0, 1) from the seed and a request's shape and rank. */
export function rollOf(seed: number, shape: string, rank: number): number {
  return createHash('sha256').update(`${seed}|${shape}|${rank}`).digest().readUInt32BE(0) / 4294967296
}

/**
 * The same answer, except that its body breaks half way with `TypeError: terminated`, as undici reports a
 * connection closed mid-body. Answers without a body are returned as they are.
 */
export async function cutBody(response: Response): Promise<Response> {
  if (!response.body || [101, 204, 205, 304].includes(response.status)) return response
  const bytes = new Uint8Array(await response.arrayBuffer())
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  headers.delete('content-encoding')
  let sent = false
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent && bytes.length > 1) {
        sent = true
        controller.enqueue(bytes.slice(0, Math.floor(bytes.length / 2)))
        return
      }
      controller.error(new TypeError('terminated'))
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers })
}
