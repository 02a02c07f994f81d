/**
 * Validating a request body never holds the service's event loop for long (issue 16), and judges as the
 * in-place validator does. The body validators run with `allErrors`, and over a document's blocks (a
 * oneOf of ~24 kinds, each with nested `nodes`) that costs time exponential in the nesting: in place, a
 * 1 MB comment with one broken block held the loop 0.7-1.2 s, a 0.9 KB comment of four nested lists with
 * a leaf's text a number ~0.3 s (a million errors), and at six levels the process ran out of heap. Such
 * bodies are judged in a worker now (spec/body-validation.ts, spec/body-validator-pool.ts).
 *
 * Holds are bounded as the other stall tests bound them (support/stall.ts): the longest turn's CPU
 * against the thread's CPU over the whole request, both measured in the same run (this machine's speed
 * swings several times between windows). In place, the validation is the request's turn, nearly all of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { markdownToDocument } from '../../src/main/content/markdown/document/to-document'
import { allRoutes } from '../../src/main/service/api'
import { validateRequestBody, hasRecursiveBody } from '../../src/main/service/spec/body-validation'
import { BodyValidatorPool } from '../../src/main/service/spec/body-validator-pool'
import { SpecRegistry } from '../../src/main/service/spec/openapi-spec'
import { markdownOfSize } from '../support/large-markdown'
import { startTestService, type TestService } from '../support/service'
import { besideBigRequest, expectNoStall } from './support/stall'

type Node = Record<string, unknown> & { nodes?: Node[]; leaves?: Array<{ text: unknown }> }

const MARKDOWN_BLOCKS = [
  (i: number) => `## Heading ${i}\n\n`,
  (i: number) => `- item **${i}** with [a link](https://example.com/${i})\n- second _item_\n  1. nested \`code\`\n\n`,
  (i: number) => '```ts\nconst x' + i + ' = 1\n```\n\n',
  (i: number) => `> A quote ${i} with ~~strike~~ text\n\n`,
  (i: number) => `{% hint style="info" %}\nHint ${i} **bold**.\n{% endhint %}\n\n`,
  (i: number) => `| a | b |\n| - | - |\n| ${i} | two |\n\n`,
  (i: number) => `Paragraph ${i} with **bold**, _italic_, \`code\` and a [link](https://example.com/${i}).\n\n`,
]

/** A document of about `bytes` of markdown, of every kind of block above. */
function documentOf(bytes: number): Node {
  return markdownToDocument(markdownOfSize(bytes, (i) => MARKDOWN_BLOCKS[i % MARKDOWN_BLOCKS.length](i))) as unknown as Node
}

/** Every leaf's text made a number (each one an error at the bottom of every block kind's check). */
function textsToNumbers(value: unknown): void {
  if (!value || typeof value !== 'object') return
  for (const leaf of (value as Node).leaves ?? []) leaf.text = 7
  Object.values(value).forEach(textsToNumbers)
}

/** `depth` lists nested in each other, their leaves' texts numbers: the in-place validator's worst case. */
function nestedListsWithNumberTexts(depth: number): Node {
  const document = markdownToDocument(Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}- item`).join('\n') + '\n') as unknown as Node
  textsToNumbers(document)
  return document
}

function report(what: string, run: Awaited<ReturnType<typeof besideBigRequest>>): void {
  const { holds, duration, waits, worstOwnCpuMs } = run
  console.log(`${what}: ${waits.length} small requests in ${duration.toFixed(0)} ms; longest hold ${holds?.worstCpuMs.toFixed(1)} ms CPU (${worstOwnCpuMs?.toFixed(1)} without the collector) of ${holds?.totalCpuMs.toFixed(0)} ms`)
}

describe('request bodies validated off the event loop', () => {
  let t: TestService
  beforeAll(async () => {
    // Not spec-checked: the answers are small errors, and checking is test-mode work on the loop.
    t = await startTestService({ validateResponses: false })
  })
  afterAll(async () => t.close())

  const comment = (body: string) => () => t.api.raw('POST', '/spaces/any-space/comments', body)
  // The first body of its kind compiles its validators (in place before, in the worker now): not this test's question.
  const compileFirst = async () => expect((await comment(JSON.stringify({ body: 7 }))()).status).toBe(400)

  it('keeps answering while a 1 MB comment with a broken block is judged', async () => {
    await compileFirst()
    const document = documentOf(256 * 1024)
    const nodes = document.nodes as Node[]
    nodes[nodes.length - 1].type = 'no-such-block'
    const body = JSON.stringify({ body: { document } })
    expect(body.length).toBeGreaterThan(1024 * 1024)
    const run = await besideBigRequest(t, comment(body), { paceMs: 2 })
    expect(run.res.status).toBe(400)
    expect(JSON.stringify(run.res.body)).toContain(`body/body/document/nodes/${nodes.length - 1}/type must be equal to one of the allowed values`)
    report('1 MB comment', run)
    expectNoStall(run)
  }, 120_000)

  it('keeps answering while a small comment of nested lists with broken texts is judged', async () => {
    await compileFirst()
    const body = JSON.stringify({ body: { document: nestedListsWithNumberTexts(4) } })
    expect(body.length).toBeLessThan(1024)
    const run = await besideBigRequest(t, comment(body), { paceMs: 2 })
    expect(run.res.status).toBe(400)
    expect(JSON.stringify(run.res.body)).toContain("body/body must have required property 'markdown'")
    report('0.9 KB nested comment', run)
    expectNoStall(run)
  }, 120_000)
})

describe('a body judged in the worker', () => {
  const pool = new BodyValidatorPool({ size: 1, explainLimitMs: 2_000 })
  afterAll(async () => pool.close())

  it('gets the verdict and error text the in-place validator gives', async () => {
    const spec = new SpecRegistry()
    const documents: unknown[] = [nestedListsWithNumberTexts(2)]
    const real = documentOf(600)
    const numberTexts = structuredClone(real)
    textsToNumbers(numberTexts)
    documents.push(real, numberTexts)
    for (const [index] of (real.nodes as Node[]).entries()) {
      for (const breakIt of [(n: Node) => (n.type = 'no-such-block'), (n: Node) => (n.extra = true), (n: Node) => (n.nodes = 'text' as never), (n: Node) => delete n.object]) {
        const copy = structuredClone(real)
        breakIt((copy.nodes as Node[])[index])
        documents.push(copy)
      }
    }
    const recursive = [...new Set(allRoutes.map((route) => route.operationId))].map((id) => spec.operation(id)).filter(hasRecursiveBody)
    expect(recursive.map((op) => op.operationId)).toEqual(expect.arrayContaining(['postCommentInSpace', 'updateChangeRequestContent', 'updateOrganizationAgentInstructions']))
    // One operation per body schema (the comment operations of spaces and change requests share theirs).
    const bySchema = new Map(recursive.map((op) => [JSON.stringify(op.requestBody?.schema), op]))

    let accepted = 0
    let rejected = 0
    for (const op of bySchema.values()) {
      const samples: unknown[] = [{}, { noSuchProperty: 1 }, 7, null, [], 'text', ...documents]
      // Each document under the property that carries one in this operation's body (the others are rejected at the top).
      const carry = op.operationId === 'updateChangeRequestContent'
        ? (document: unknown) => [{ changes: [{ operation: 'insert_page', title: 'New', document: { document } }] }, { changes: [{ operation: 'insert_page', title: 7, document: { document } }] }]
        : (document: unknown) => [{ body: { document } }, { body: { document }, extra: 1 }, { instructions: document }, { subject: 'x', body: { document } }]
      for (const document of documents) samples.push(...carry(document))
      for (const body of samples) {
        const raw = Buffer.from(JSON.stringify(body))
        const verdict = await validateRequestBody(spec, op, body, raw, pool)
        expect(verdict, `${op.operationId} ${raw.toString().slice(0, 200)}`).toBe(spec.validateBody(op, body))
        if (verdict === null) accepted++
        else rejected++
      }
    }
    expect(pool.fallbackReason).toBeUndefined()
    expect(accepted, `${accepted} accepted, ${rejected} rejected`).toBeGreaterThan(50)
    expect(rejected, `${accepted} accepted, ${rejected} rejected`).toBeGreaterThan(500)
  }, 300_000)

  it('answers a body whose full error list would not fit with its first errors, and goes on judging', async () => {
    const spec = new SpecRegistry()
    const op = spec.operation('postCommentInSpace')
    // Six levels: in place, tens of millions of errors (the process ran out of its 4 GB heap).
    const body = { body: { document: nestedListsWithNumberTexts(6) } }
    const verdict = await validateRequestBody(spec, op, body, Buffer.from(JSON.stringify(body)), pool)
    expect(verdict).toMatch(/^body\/body must have required property 'markdown'; body\/body\/document\/nodes\/0\/type must be equal to one of the allowed values; /)
    const small = { body: { markdown: 'Fine.' } }
    expect(await validateRequestBody(spec, op, small, Buffer.from(JSON.stringify(small)), pool)).toBeNull()
    expect(pool.fallbackReason).toBeUndefined()
  }, 120_000)
})
