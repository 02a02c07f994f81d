/**
 * Compiles the request validators of a service's operations at start-up without holding its event loop
 * (issue 16): a worker thread compiles them (standalone-validators.ts) and the event loop loads what it
 * sends, one module per turn, a few ms each. A request that needs a validator before then compiles it in
 * place, as the registry always does on a miss, and the worker's copy of it is dropped.
 *
 * Where no worker can run (it fails to start or to load ajv) or a module cannot be loaded, the validators
 * not loaded yet are compiled in place, one per turn: slower turns (up to ~100 ms for the largest), the
 * same validators.
 */
import type { Worker } from 'node:worker_threads'
import type { RequestValidatorJob, SpecRegistry } from './openapi-spec'
import { instantiateGroup, startValidatorCompiler, type CompilerMessage, type StandaloneGroup } from './standalone-validators'

export interface WarmupResult {
  /** Validators loaded from the worker's code. */
  offThread: number
  /** Validators compiled in place by the warm-up (the worker could not make them). */
  inPlace: number
  /** Modules V8 parsed because it refused their code cache (each such turn is several times longer). */
  cacheRejected: number
  /** Why the worker's code was not used for some or all of them, where it was not. */
  problem?: string
}

export interface ValidatorWarmup {
  /** Settles once every validator is compiled, or the warm-up stopped. */
  readonly done: Promise<WarmupResult>
  /** Stops the worker and any work left (the service is closing). */
  stop(): void
}

/** Starts compiling the request validators of these operations; validation meanwhile works as before. */
export function warmRequestValidators(spec: SpecRegistry, operationIds: Iterable<string>): ValidatorWarmup {
  return new Warmup(spec, spec.requestValidatorJobs(operationIds))
}

class Warmup implements ValidatorWarmup {
  readonly done: Promise<WarmupResult>
  private finish: (result: WarmupResult) => void = () => undefined
  private readonly result: WarmupResult = { offThread: 0, inPlace: 0, cacheRejected: 0 }
  private readonly worker: Worker | undefined
  /** Groups received, loaded one per turn. */
  private readonly groups: StandaloneGroup[] = []
  private workerDone = false
  private falling = false
  /** Falling back: the next job to compile in place unless it is compiled already. */
  private next = 0
  private stopped = false
  private turn: NodeJS.Immediate | undefined

  constructor(
    private readonly spec: SpecRegistry,
    private readonly jobs: RequestValidatorJob[],
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve))
    if (jobs.length === 0) {
      this.finish(this.result)
      return
    }
    try {
      this.worker = startValidatorCompiler(jobs)
    } catch (error) {
      this.fallBack(`the compiler worker did not start: ${message(error)}`)
      return
    }
    this.worker.on('message', (msg: CompilerMessage) => this.received(msg))
    this.worker.on('error', (error) => this.fallBack(`the compiler worker failed: ${message(error)}`))
    this.worker.on('exit', (code) => {
      if (!this.workerDone) this.fallBack(`the compiler worker exited (${code}) before it was done`)
    })
  }

  stop(): void {
    this.stopped = true
    if (this.turn) clearImmediate(this.turn)
    this.turn = undefined
    void this.worker?.terminate()
    this.finish(this.result)
  }

  private received(msg: CompilerMessage) {
    if (this.stopped || this.falling) return
    if ('group' in msg) this.groups.push(msg.group)
    else if ('failed' in msg) this.result.problem = `the worker could not compile ${msg.failed.map((i) => this.jobs[i]?.key).join(', ')}: ${msg.reason}`
    else this.workerDone = true
    this.schedule()
  }

  private schedule() {
    if (this.turn || this.stopped) return
    this.turn = setImmediate(() => {
      this.turn = undefined
      this.step()
    })
  }

  /** One turn's work: load one module, or (falling back) compile one validator in place; done when nothing is left. */
  private step() {
    if (this.stopped) return
    if (this.falling) {
      while (this.next < this.jobs.length && this.spec.has(this.jobs[this.next].key)) this.next++
      if (this.next === this.jobs.length) return this.finish(this.result)
      this.compileInPlace(this.jobs[this.next++])
      return this.schedule()
    }
    const group = this.groups.shift()
    if (group) {
      this.load(group)
      return this.schedule()
    }
    if (!this.workerDone) return
    // Done: anything the worker did not make (a schema it failed on) is compiled in place.
    this.falling = true
    this.schedule()
  }

  private load(group: StandaloneGroup) {
    let loaded
    try {
      loaded = instantiateGroup(group)
    } catch (error) {
      this.fallBack(`a module of the worker's validators did not load: ${message(error)}`)
      return
    }
    if (loaded.cacheRejected) this.result.cacheRejected++
    for (const [index, validate] of loaded.validators) {
      const key = this.jobs[index].key
      if (this.spec.has(key)) continue
      this.spec.adopt(key, validate)
      this.result.offThread++
    }
  }

  private compileInPlace(job: RequestValidatorJob) {
    this.result.inPlace++
    try {
      this.spec.compileJob(job)
    } catch (error) {
      // The request that needs it will fail the same way, as it did before any warm-up.
      this.result.problem ??= `${job.key} does not compile: ${message(error)}`
    }
  }

  /** From now on the validators not loaded yet are compiled here, one per turn. */
  private fallBack(problem: string) {
    if (this.stopped || this.falling) return
    this.result.problem ??= problem
    this.falling = true
    this.groups.length = 0
    void this.worker?.terminate()
    this.schedule()
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
