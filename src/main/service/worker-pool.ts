import type { Worker } from 'node:worker_threads'

/**
 * A small pool of worker threads for the service's CPU-bound work (markdown parsing, request-body
 * validation: link-workers/pool.ts, spec/body-validator-pool.ts). What it keeps by hand, and why a
 * general pool library does not fit: a task's time limit counts from when the worker's script has
 * loaded (not its start-up), may be restarted by the task's own messages (a second step with its own
 * limit), and past it the worker is ended, the only way to stop a runaway parse, and replaced. A worker
 * that dies before its script loaded means workers cannot run here at all: every task from then on is
 * `unavailable` and its caller does the work another way. Workers start on first use, do not keep the
 * process alive while idle, and end after `idleMs` idle.
 */

/** What a pooled worker posts: that its script loaded, or a message about task `id`. */
export type PoolMessage = { ready: true } | { id: number }

/** Why a task's worker went away mid-task. */
export type TaskLoss = { overranMs: number } | { reason: string }

export interface PoolTask<M> {
  /** Posts the task to `worker` as task `id`. */
  send(worker: Worker, id: number): void
  /** Its time limit in ms, counted from when the worker is ready. */
  readonly timeLimitMs: number
  /** A message about this task: 'done' frees the worker; a number restarts the clock with that limit. */
  receive(message: M): 'done' | number
  /** No worker can run it (none can start here, or the pool closed). */
  unavailable(reason: string): void
  /** Its worker overran the limit (and was ended) or died during the task. */
  lost(loss: TaskLoss): void
}

export interface WorkerPoolOptions {
  /** Workers at most. */
  size: number
  /** An idle worker ends after this long. */
  idleMs: number
  /** Starts one worker; throws where none can start. */
  create(): Worker
  /** The workers' name in reasons: "link worker" gives "link worker exited with code 1". */
  label: string
  /** What happens instead once no worker can start, for the process warning ("… on the main thread from now on"). */
  fallback: string
  /** The process warning's type. */
  warningType: string
}

interface Pooled<M> {
  worker: Worker
  /** Its script loaded (it said so): a failure from then on is the task's, not the setup's. */
  ready: boolean
  busy?: { id: number; task: PoolTask<M>; limitMs: number; timer?: NodeJS.Timeout }
  idleTimer?: NodeJS.Timeout
}

export class WorkerPool<M extends PoolMessage> {
  private readonly workers: Array<Pooled<M>> = []
  private readonly queue: Array<PoolTask<M>> = []
  private nextId = 0
  /** Set once a worker could not start: from then on every task is unavailable. */
  private broken: string | undefined

  constructor(private readonly options: WorkerPoolOptions) {}

  run(task: PoolTask<M>): void {
    if (this.broken !== undefined) return task.unavailable(this.broken)
    this.queue.push(task)
    this.dispatch()
  }

  /** Why no worker runs here, if none can. */
  get fallbackReason(): string | undefined {
    return this.broken
  }

  /** Ends every worker; tasks running or queued are unavailable. */
  async close(): Promise<void> {
    const reason = `${this.options.label} pool closed`
    const workers = this.workers.splice(0)
    for (const pooled of workers) this.free(pooled)?.unavailable(reason)
    for (const task of this.queue.splice(0)) task.unavailable(reason)
    await Promise.all(workers.map((pooled) => pooled.worker.terminate()))
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.workers.find((pooled) => !pooled.busy) ?? (this.workers.length < Math.max(1, this.options.size) ? this.start() : undefined)
      if (!idle) return
      const task = this.queue.shift()!
      clearTimeout(idle.idleTimer)
      const id = this.nextId++
      idle.busy = { id, task, limitMs: task.timeLimitMs }
      if (idle.ready) this.startClock(idle)
      idle.worker.ref()
      task.send(idle.worker, id)
    }
  }

  private start(): Pooled<M> | undefined {
    let worker: Worker
    try {
      worker = this.options.create()
    } catch (error) {
      this.giveUp(`${this.options.label} could not start: ${String(error)}`)
      return undefined
    }
    const pooled: Pooled<M> = { worker, ready: false }
    this.workers.push(pooled)
    worker.on('message', (message: M) => this.received(pooled, message))
    worker.on('error', (error) => this.lost(pooled, `${this.options.label} failed: ${error.message}`))
    worker.on('exit', (code) => this.lost(pooled, `${this.options.label} exited with code ${code}`))
    return pooled
  }

  private received(pooled: Pooled<M>, message: M): void {
    if ('ready' in message) {
      pooled.ready = true
      if (pooled.busy) this.startClock(pooled)
      return
    }
    const busy = pooled.busy
    if (busy?.id !== message.id) return
    const next = busy.task.receive(message)
    if (next !== 'done') {
      clearTimeout(busy.timer)
      busy.limitMs = next
      this.startClock(pooled)
      return
    }
    this.free(pooled)
    pooled.worker.unref()
    pooled.idleTimer = setTimeout(() => this.retire(pooled), this.options.idleMs).unref()
    this.dispatch()
  }

  private startClock(pooled: Pooled<M>): void {
    const busy = pooled.busy
    if (busy) busy.timer = setTimeout(() => this.overrun(pooled), busy.limitMs)
  }

  /** A task past its limit: its worker is ended and replaced by the next task's. */
  private overrun(pooled: Pooled<M>): void {
    if (!this.remove(pooled)) return
    const limitMs = pooled.busy?.limitMs ?? 0
    this.free(pooled)?.lost({ overranMs: limitMs })
    void pooled.worker.terminate()
    this.dispatch()
  }

  /** A worker that failed or exited: before it was ready, workers cannot run here at all. */
  private lost(pooled: Pooled<M>, reason: string): void {
    if (!this.remove(pooled)) return // retired, overrun or closed on purpose
    if (!pooled.ready) return this.giveUp(reason, pooled)
    this.free(pooled)?.lost({ reason })
    this.dispatch()
  }

  private giveUp(reason: string, pooled?: Pooled<M>): void {
    if (this.broken === undefined) process.emitWarning(`${reason}; ${this.options.fallback} from now on`, this.options.warningType)
    this.broken ??= reason
    if (pooled) this.free(pooled)?.unavailable(reason)
    for (const task of this.queue.splice(0)) task.unavailable(reason)
  }

  /** The worker's task, taken off it (its clock stopped); undefined when it had none. */
  private free(pooled: Pooled<M>): PoolTask<M> | undefined {
    const busy = pooled.busy
    if (!busy) return undefined
    pooled.busy = undefined
    clearTimeout(busy.timer)
    return busy.task
  }

  /** Takes a worker out of the pool; false when it was not in it any more. */
  private remove(pooled: Pooled<M>): boolean {
    const at = this.workers.indexOf(pooled)
    if (at === -1) return false
    this.workers.splice(at, 1)
    clearTimeout(pooled.idleTimer)
    return true
  }

  private retire(pooled: Pooled<M>): void {
    if (pooled.busy || !this.remove(pooled)) return
    void pooled.worker.terminate()
  }
}
