/**
 * The fault-injection tests, one file per scenario (fault-injection-push.test.ts,
 * fault-injection-pass.test.ts), in the spirit of Nextcloud's FakeFolder: the cache database and the
 * workspace fail at the i-th access of one push and of one pass, and after Quire carries on (or
 * restarts) nothing is lost (P1), nothing is sent twice (P3) and a clean pass leaves the folder equal to
 * the service (P4).
 *
 * A clean run counts the scenario's N accesses (fault-injection.ts says what an access is). Then, from
 * a fresh copy of the same service and workstation each time:
 * - error mode, every i = 1..N: access i fails (EIO, SQLITE_IOERR), the operation goes on or fails as the
 *   engine decides, then the next rounds of `quire watch` run in the same process until nothing is left;
 * - kill mode, a deterministic spread of i: the operation runs in a child process that SIGKILLs itself at
 *   access i (no cleanup runs), then Quire restarts and completes. The spread is the first access after
 *   each distinct kind of HTTP answer (the service did it, Quire has not written it down), then accesses
 *   evenly spread over 1..N, QUIRE_FAULT_KILLS in all (default 8; `all` kills at every i).
 *
 * Replay one case: QUIRE_FAULT_MODE=error|kill QUIRE_FAULT_AT=i (each optional)
 * npx vitest run test/engine/fault-injection-push.test.ts (or -pass); QUIRE_FAULT_LOG=FILE writes the
 * clean run's accesses and HTTP answers to FILE.push / FILE.pass, to see what access i is.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Workstation } from '../sync-up/support/workspace'
import { arm, disarm, installFaultInjection, note, type FaultReport } from './fault-injection'
import { runOperation, type ScenarioName } from './fault-operation'
import { buildTemplate, complete, instantiate, removeTemplate, violations, type Instance, type Template } from './fault-scenarios'

// No writer saves during these passes: the wait for a paused save after each pass (ReplacedFiles, 100 ms)
// would only add up, pass after pass; the replaced files are still looked at.
process.env.QUIRE_LATE_SAVE_MS = '0'

const only = {
  mode: process.env.QUIRE_FAULT_MODE as 'error' | 'kill' | undefined,
  at: process.env.QUIRE_FAULT_AT ? Number(process.env.QUIRE_FAULT_AT) : undefined,
}
const KILLS = process.env.QUIRE_FAULT_KILLS ?? '8'
const child = path.resolve(__dirname, 'fault-child.ts')

interface Failure {
  mode: 'error' | 'kill'
  at: number
  /** The access that failed (or was killed at). */
  fired?: string
  /** What the faulty operation itself threw, if anything. */
  threw?: string
  problems: string[]
}

function describeFailures(scenario: ScenarioName, failures: readonly Failure[]): string {
  return failures
    .map((f) => `${scenario} ${f.mode} at access ${f.at} (${f.fired ?? 'not reached'})${f.threw ? `, the operation threw: ${f.threw}` : ''}\n  ${f.problems.join('\n  ')}`)
    .join('\n')
}

/** A Workstation whose HTTP answers are noted in the fault log, so kill points can follow them. */
function noting(i: Instance): Workstation {
  const fetchNoting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    const url = String(input instanceof Request ? input.url : input).replace(/^https?:\/\/[^/]+\/v1/, '')
    note(`http ${init?.method ?? 'GET'} ${url.replace(/\?.*$/, '').replace(/\/[A-Za-z0-9_-]{16,}/g, '/:id')} ${response.status}`)
    return response
  }
  return new Workstation(i.remote, i.seeded, i.dir, { gateway: { fetch: fetchNoting } })
}

/** The kill points: the first access after each distinct kind of HTTP answer, then even spacing, `count` in all. */
function killPoints(clean: FaultReport, count: number): number[] {
  const n = clean.count
  if (count >= n) return Array.from({ length: n }, (_, k) => k + 1)
  const points = new Set<number>()
  const seen = new Set<string>()
  let answer: string | undefined
  for (const line of clean.log) {
    if (line.startsWith('- http ')) answer = line
    else if (answer !== undefined) {
      const at = Number(line.split(' ')[0])
      const kind = `${answer} -> ${line.slice(line.indexOf(' ') + 1).replace(/\.quire-tmp-\w+-/, '.quire-tmp-')}`
      if (!seen.has(kind) && points.size < count) {
        seen.add(kind)
        points.add(at)
      }
      answer = undefined
    }
  }
  for (let k = 0; points.size < count; k++) points.add(1 + Math.floor(((k * 0.618034) % 1) * n))
  return [...points].sort((a, b) => a - b)
}

/** A child loaded and waiting for its order (started ahead, so loading overlaps the parent's checks). */
interface Child {
  /** Ends a child that got no order (the loop stopped early). */
  dispose(): void
  order(order: object): Promise<{ killed?: string; done?: number; stderr: string; code: number | null; signal: NodeJS.Signals | null }>
}

function startChild(): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', child], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  let killed: string | undefined
  let done: number | undefined
  proc.stderr.on('data', (d) => (stderr += String(d)))
  const ready = new Promise<void>((resolve) => {
    readline.createInterface({ input: proc.stdout }).on('line', (line) => {
      if (line === 'ready') resolve()
      else if (line.startsWith('killed ')) killed = line.slice('killed '.length)
      else if (line.startsWith('done ')) done = Number(line.slice('done '.length))
    })
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })))
  return {
    dispose: () => void proc.kill('SIGKILL'),
    async order(order) {
      await Promise.race([ready, exited])
      proc.stdin.end(`${JSON.stringify(order)}\n`)
      const { code, signal } = await exited
      return { killed, done, stderr, code, signal }
    },
  }
}

/** Registers the tests of one scenario (one test file each, so the two run on separate workers). */
export function faultInjectionSuite(scenario: ScenarioName) {
  const restoreFs = installFaultInjection()
  // A rejection nobody handles ends a plain Node process (quire sync, quire watch): it breaks the run it came from.
  const stray: string[] = []
  const onStray = (reason: unknown) => stray.push(`unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}`)
  process.on('unhandledRejection', onStray)
  afterAll(() => {
    process.off('unhandledRejection', onStray)
    restoreFs()
  })

  const what = scenario === 'push' ? 'one push (edits, a new page, a comment marker)' : 'one pass (sync down of remote edits, a new page, a deletion, a rename)'
  describe(`fault injection at every access of the cache and the workspace: ${what}`, () => {
    let template: Template
    let clean: FaultReport
    beforeAll(async () => {
      template = await buildTemplate(scenario)
      // The clean run: what is counted, and proof that the promises hold with no fault at all.
      const i = await instantiate(template)
      try {
        const ws = noting(i)
        arm({ root: i.dir, mode: 'count' })
        await runOperation(ws, scenario)
        clean = disarm()
        if (process.env.QUIRE_FAULT_LOG) fs.writeFileSync(`${process.env.QUIRE_FAULT_LOG}.${scenario}`, `${clean.log.join('\n')}\n`)
        await complete(ws, scenario)
        ws.close()
        const problems = await violations(i)
        if (problems.length > 0) throw new Error(`the clean ${scenario} breaks the promises:\n${problems.join('\n')}`)
      } finally {
        await i.close()
      }
    }, 120_000)
    afterAll(() => template && removeTemplate(template))

    it('the clean run reaches the cache database and the workspace through the injection points', () => {
      // Without this, a refactoring that moved the engine's I/O out of reach would leave nothing to fail.
      const kinds = new Set(clean.log.filter((l) => !l.startsWith('- ')).map((l) => l.split(' ').slice(1, 3).join(' ')))
      for (const kind of ['db run', 'db transaction', scenario === 'push' ? 'fs readdir' : 'fs renameSync']) expect(kinds, [...kinds].join(', ')).toContain(kind)
      expect(clean.count).toBeGreaterThan(100)
    })

    it.skipIf(only.mode === 'kill')('an error at each access i = 1..N: the operation fails there, the next rounds complete, P1 P3 P4 hold', { timeout: 900_000 }, async () => {
      const started = Date.now()
      const failures: Failure[] = []
      const points = only.at ? [only.at] : Array.from({ length: clean.count }, (_, k) => k + 1)
      let threw = 0
      const unreached: number[] = []
      for (const at of points) {
        const i = await instantiate(template)
        try {
          const ws = new Workstation(i.remote, i.seeded, i.dir)
          const failure: Failure = { mode: 'error', at, problems: [] }
          arm({ root: i.dir, mode: 'throw', at })
          try {
            await runOperation(ws, scenario)
          } catch (error) {
            failure.threw = error instanceof Error ? error.message : String(error)
            threw++
          }
          failure.fired = disarm().fired
          if (!failure.fired) unreached.push(at)
          try {
            await complete(ws, scenario)
          } catch (error) {
            failure.problems.push(`after the fault, Quire does not complete: ${error instanceof Error ? error.stack : String(error)}`)
          } finally {
            ws.close()
          }
          failure.problems.push(...(await violations(i)), ...stray.splice(0))
          if (failure.problems.length > 0) failures.push(failure)
        } finally {
          await i.close()
        }
      }
      console.log(
        `fault injection, ${scenario}, error mode: ${points.length} of N = ${clean.count} accesses, ${threw} failed the operation, ` +
          `${unreached.length} not reached (${unreached.join(', ')}), ${failures.length} broke a promise, ${Date.now() - started} ms`,
      )
      expect(failures.length, `${failures.length} runs broke a promise:\n${describeFailures(scenario, failures)}`).toBe(0)
    })

    it.skipIf(only.mode === 'error')(`SIGKILL at a spread of accesses (QUIRE_FAULT_KILLS=${KILLS}): after a restart, P1 P3 P4 hold`, { timeout: 900_000 }, async () => {
      const started = Date.now()
      const failures: Failure[] = []
      const points = only.at ? [only.at] : killPoints(clean, KILLS === 'all' ? clean.count : Number(KILLS))
      let next = startChild()
      let ordered = false
      try {
        for (const [k, at] of points.entries()) {
          const i = await instantiate(template)
          try {
            ordered = true
            const run = await next.order({ scenario, remote: i.remote, seeded: i.seeded, dir: i.dir, at })
            if (k + 1 < points.length) {
              next = startChild()
              ordered = false
            }
            const failure: Failure = { mode: 'kill', at, fired: run.killed, problems: [] }
            if (run.signal !== 'SIGKILL' && run.code !== 0) failure.problems.push(`the child failed (${run.code}): ${run.stderr.slice(-2000)}`)
            else if (run.signal !== 'SIGKILL') failure.problems.push(`the child ended after ${run.done} accesses without reaching ${at}`)
            // The restart: a new process's Quire on the same folder and cache.
            const ws = new Workstation(i.remote, i.seeded, i.dir)
            try {
              await complete(ws, scenario)
            } catch (error) {
              failure.problems.push(`after the restart, Quire does not complete: ${error instanceof Error ? error.stack : String(error)}`)
            } finally {
              ws.close()
            }
            failure.problems.push(...(await violations(i)), ...stray.splice(0))
            if (failure.problems.length > 0) failures.push(failure)
          } finally {
            await i.close()
          }
        }
      } finally {
        if (!ordered) next.dispose()
      }
      console.log(`fault injection, ${scenario}, kill mode: ${points.length} kills of N = ${clean.count} accesses (${points.join(', ')}), ${failures.length} broke a promise, ${Date.now() - started} ms`)
      expect(failures.length, `${failures.length} runs broke a promise:\n${describeFailures(scenario, failures)}`).toBe(0)
    })
  })
}
