/**
 * The service compiles its request validators in a worker thread at start-up (issue 16): the event loop
 * only loads the code the worker sends, so no turn of it is held for long while requests come in, and the
 * validators judge exactly as those ajv compiles in place (accept or reject, the same error text, the
 * same coerced parameters).
 *
 * The bound on the longest turn is relative to the most CPU one validator costs to compile in place,
 * measured in the same run on a registry of its own: the warm-up that compiled them one per turn on the
 * event loop held it for about that long (70-110 ms here), the worker's for a twentieth of it.
 */
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { markdownToDocument } from '../../src/main/content/markdown/document/to-document'
import { allRoutes } from '../../src/main/service/api'
import { HttpService } from '../../src/main/service/http/server'
import { publishedSpec, SPEC_ID, SpecRegistry } from '../../src/main/service/spec/openapi-spec'
import type { OperationSpec } from '../../src/main/service/spec/types'
import { warmRequestValidators } from '../../src/main/service/spec/validator-warmup'
import { openServiceDatabase } from '../../src/main/service/store/database'
import { ServiceStore } from '../../src/main/service/store/service-store'
import { UsersRepository } from '../../src/main/service/store/users'
import { threadCpuMs, watchLoopHolds } from '../support/loop-turns'

const operationIds = allRoutes.map((route) => route.operationId)

/** The thread's CPU time where the kernel says, else wall-clock time (other systems: a looser measure, on both sides). */
const hasThreadCpu = threadCpuMs() !== undefined
const clockMs = (): number => threadCpuMs() ?? performance.now()

/** The most time one request validator takes to compile in place, on a registry of its own (each compiled once, in the service's order). */
function longestInPlaceCompileMs(): { ms: number; key: string } {
  const spec = new SpecRegistry()
  let longest = { ms: 0, key: '' }
  for (const job of spec.requestValidatorJobs(operationIds)) {
    const before = clockMs()
    spec.compileJob(job)
    const ms = clockMs() - before
    if (ms > longest.ms) longest = { ms, key: job.key }
  }
  return longest
}

/** The first fetch in a process loads undici's modules: 20 ms in one turn, the test's own, not the service's. */
async function loadFetch(): Promise<void> {
  const server = http.createServer((_req, res) => res.end('ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await (await fetch(`http://127.0.0.1:${port}/`)).text()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}

describe('request validators compiled off the event loop', () => {
  let close: (() => Promise<void>) | undefined
  afterEach(async () => {
    await close?.()
    close = undefined
  })

  it('holds the event loop for a small share of the longest in-place compile while small requests are answered', async () => {
    const reference = longestInPlaceCompileMs()
    const store = new ServiceStore(openServiceDatabase(':memory:'))
    const users = store.repo(UsersRepository)
    const token = users.issueToken(users.create({ displayName: 'Owner', email: 'owner@example.com' }).id)
    // As local-service.ts starts it, with a registry of its own (nothing compiled yet): the warm-up is on.
    const service = new HttpService({ store, routes: allRoutes, spec: new SpecRegistry() })
    close = async () => {
      await service.close()
      store.close()
    }

    await loadFetch()
    const watch = watchLoopHolds()
    const wallStarted = performance.now()
    const origin = await service.listen(0, '127.0.0.1')
    let warm = false
    const warmed = service.validatorsWarm.finally(() => (warm = true))
    const waits: number[] = []
    while (!warm) {
      const sent = performance.now()
      const res = await fetch(`${origin}/v1/user`, { headers: { Authorization: `Bearer ${token}` } })
      expect(res.status).toBe(200)
      await res.arrayBuffer()
      waits.push(performance.now() - sent)
      // Paced: back-to-back requests make garbage enough for the collector's pauses to be the longest turns.
      await sleep(5)
    }
    const result = await warmed
    const holds = watch?.stop()
    const warmupMs = performance.now() - wallStarted

    const seen = `${waits.length} requests during the warm-up (${warmupMs.toFixed(0)} ms), worst wait ${Math.max(...waits).toFixed(0)} ms; longest hold ${holds?.worstCpuMs.toFixed(1)} ms CPU (${holds?.worstWallMs.toFixed(0)} ms wall) of ${holds?.totalCpuMs.toFixed(0)} ms; compiling ${reference.key} in place: ${reference.ms.toFixed(1)} ms; ${JSON.stringify(result)}`
    expect(result?.problem, seen).toBeUndefined()
    expect(result?.inPlace, seen).toBe(0)
    expect(result?.cacheRejected, seen).toBe(0)
    expect(result?.offThread, seen).toBeGreaterThan(400)
    expect(waits.length, seen).toBeGreaterThanOrEqual(3)
    const worstHold = hasThreadCpu ? holds!.worstCpuMs : Math.max(...waits)
    expect(worstHold, seen).toBeLessThan(reference.ms / 3)
  })

  // Compiles every validator twice (in the worker, then in place on this thread): tens of seconds of CPU on a busy machine.
  it('judges requests exactly as validators compiled in place do', { timeout: 180_000 }, async () => {
    const offThread = new SpecRegistry()
    const warmup = warmRequestValidators(offThread, operationIds)
    close = async () => warmup.stop()
    const result = await warmup.done
    expect(result.problem).toBeUndefined()
    expect(result.inPlace).toBe(0)
    const inPlace = new SpecRegistry()

    let accepted = 0
    let rejected = 0
    const compare = (what: string, judge: (spec: SpecRegistry, value: unknown) => string | null, value: unknown) => {
      // Each side gets its own copy: parameters are coerced in place, and the coerced values must match too.
      const mine = structuredClone(value)
      const theirs = structuredClone(value)
      const verdict = judge(offThread, mine)
      expect({ verdict, value: mine }, what).toEqual({ verdict: judge(inPlace, theirs), value: theirs })
      if (verdict === null) accepted++
      else rejected++
    }

    for (const id of new Set(operationIds)) {
      const op = offThread.operation(id)
      for (const location of ['path', 'query'] as const) {
        for (const values of parameterSamples(op, location)) {
          compare(`${id} ${location} ${JSON.stringify(values)}`, (spec, v) => spec.validateParameters(spec.operation(id), location, v as Record<string, unknown>), values)
        }
      }
      if (!op.requestBody?.schema) continue
      for (const body of bodySamples(op)) compare(`${id} body ${JSON.stringify(body).slice(0, 200)}`, (spec, v) => spec.validateBody(spec.operation(id), v), body)
    }
    expect(rejected, `${accepted} accepted, ${rejected} rejected`).toBeGreaterThan(1000)
    expect(accepted, `${accepted} accepted, ${rejected} rejected`).toBeGreaterThan(100)
  })
})

/** Values a path or query parameter may come as (strings, as the router and query parser give them). */
const PARAMETER_VALUES: unknown[] = ['abc', '5', '-1', '0', 'true', '2024-01-31T10:00:00Z', '', ['a', 'b'], ['1', '2']]

/** Each parameter of the location in turn given each value; all of them at once given the first two. */
function parameterSamples(op: OperationSpec, location: 'path' | 'query'): Record<string, unknown>[] {
  const names = op.parameters.filter((p) => p.in === location).map((p) => p.name)
  const samples: Record<string, unknown>[] = [{}]
  for (const name of names) for (const value of PARAMETER_VALUES) samples.push({ [name]: value })
  for (const value of PARAMETER_VALUES.slice(0, 2)) samples.push(Object.fromEntries(names.map((name) => [name, value])))
  return samples
}

const MARKDOWN = [
  '# Title',
  'A paragraph with **bold**, _italic_, `code` and a [link](https://example.com).',
  '- one\n- two\n  1. nested',
  '- [ ] a task',
  '> a quote',
  '```ts\nconst x = 1\n```',
  '{% hint style="warning" %}\nCareful.\n{% endhint %}',
  '<details>\n<summary>More</summary>\n\nHidden text.\n\n</details>',
  '![an image](https://example.com/a.png)',
  '$$\nx^2\n$$',
  '---',
].join('\n\n')

/** A real document, a copy whose texts are numbers, and copies broken at one top-level block each (a type no block has, a property it must not have, nodes not a list). */
function documentSamples(): unknown[] {
  const document = markdownToDocument(MARKDOWN) as unknown as { nodes: Array<Record<string, unknown>> }
  const broken: unknown[] = []
  document.nodes.forEach((_, index) => {
    for (const breakIt of [(n: Record<string, unknown>) => (n.type = 'no-such-block'), (n: Record<string, unknown>) => (n.extra = true), (n: Record<string, unknown>) => (n.nodes = 'text')]) {
      const copy = structuredClone(document)
      breakIt(copy.nodes[index])
      broken.push(copy)
    }
  })
  const numberTexts = structuredClone(document)
  const textsToNumbers = (value: unknown): void => {
    if (!value || typeof value !== 'object') return
    for (const leaf of (value as { leaves?: Array<{ text: unknown }> }).leaves ?? []) leaf.text = 7
    Object.values(value).forEach(textsToNumbers)
  }
  textsToNumbers(numberTexts)
  return [document, numberTexts, ...broken]
}
const DOCUMENTS = documentSamples()

/** Values given to each top-level property of a body in turn: scalars of each type, formats' edge cases, documents. */
const PROPERTY_VALUES: unknown[] = [7, -1, 2.5, 'text', '', true, null, {}, [], [{}], ['a'], 'https://example.com/x', 'not a url', '2024-01-31T10:00:00Z', 'owner@example.com', ...DOCUMENTS]

/** A body schema's top-level property names, through its `$ref` to the spec's components where it has one. */
function propertyNames(schema: Record<string, unknown>): string[] {
  const ref = schema.$ref
  if (typeof ref === 'string' && ref.startsWith(`${SPEC_ID}#/components/`)) {
    const [section, name] = ref.slice(`${SPEC_ID}#/components/`.length).split('/')
    return propertyNames(publishedSpec.components[section][name] as Record<string, unknown>)
  }
  const own = Object.keys((schema.properties as object | undefined) ?? {})
  const ofParts = ['allOf', 'anyOf', 'oneOf'].flatMap((k) => ((schema[k] as Record<string, unknown>[] | undefined) ?? []).flatMap(propertyNames))
  return [...new Set([...own, ...ofParts])]
}

function bodySamples(op: OperationSpec): unknown[] {
  const samples: unknown[] = [{}, { noSuchProperty: 1 }, 7, null, [], 'text', ...DOCUMENTS]
  for (const name of propertyNames(op.requestBody!.schema!)) for (const value of PROPERTY_VALUES) samples.push({ [name]: value })
  if (op.operationId === 'updateChangeRequestContent') {
    for (const document of [{ markdown: '# New\n' }, ...DOCUMENTS]) samples.push({ changes: [{ operation: 'insert_page', title: 'New', document }] }, { changes: [{ operation: 'insert_page', title: 7, document }] })
  }
  return samples
}
