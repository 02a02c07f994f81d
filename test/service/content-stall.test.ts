/**
 * A large page edit must not stall the service (issue 16): remark takes seconds over megabytes of
 * markdown, and the other requests must keep being answered meanwhile. Ratios, not timings: the
 * worst wait of a small request is compared with the big request's own duration in the same run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

/** About `bytes` of markdown whose every block links to the page the same batch inserts (ref `new-page`). */
function linkedMarkdown(bytes: number): string {
  const parts: string[] = ['# Big page\n\n']
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const block =
      i % 10 === 9
        ? '```js\nconst x = [1, 2, 3] // [not a link](./new-page.md)\n```\n\n'
        : `Paragraph ${i} with **bold**, _emphasis_, a [link](./new-page.md#part-${i}), https://example.com/${i} and \`code\`. Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n\n`
    parts.push(block)
    size += block.length
  }
  return parts.join('')
}

describe('a large page edit does not stall the service', () => {
  let t: TestService
  let s: ArrangedSpace

  beforeAll(async () => {
    t = await startTestService()
    s = arrangeSpace(t.service, [page('home', '# Home\n')])
  })
  afterAll(async () => {
    await t.close()
  })

  it('answers small requests throughout a 5 MB update_page, and rewrites its links', async () => {
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Big' } })).body
    const markdown = linkedMarkdown(5 * 1024 * 1024)
    const changes = [
      { operation: 'insert_page', ref: 'new-page', title: 'New page', document: { markdown: '# New page\n' } },
      { operation: 'update_page', page: s.pages.home, document: { markdown } },
    ]

    let done = false
    const started = performance.now()
    const big = t.api.raw('POST', `/spaces/${s.spaceId}/change-requests/${cr.id}/content`, { changes }).then((res) => {
      done = true
      return { res, duration: performance.now() - started }
    })
    const waits: number[] = []
    while (!done) {
      const sent = performance.now()
      const res = await t.api.raw('GET', '/user')
      expect(res.status).toBe(200)
      waits.push(performance.now() - sent)
    }
    const { res, duration } = await big
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200)

    // Stalled, the loop above makes a few requests, one of which waits for the whole apply.
    const worst = Math.max(...waits)
    expect(waits.length, `${waits.length} small requests in ${duration.toFixed(0)} ms`).toBeGreaterThanOrEqual(20)
    expect(worst, `worst wait ${worst.toFixed(0)} ms of a ${duration.toFixed(0)} ms edit`).toBeLessThan(duration / 4)

    const read = await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests/${cr.id}/content/page/${s.pages.home}?format=markdown`)
    const body = (read.body as { markdown: string }).markdown
    expect(body.length).toBeGreaterThan(5_000_000)
    expect(body).toContain('[link](new-page.md#part-0)')
    expect(body).not.toContain('](./new-page.md#')
    expect(body).toContain('// [not a link](./new-page.md)')
  }, 300_000)
})
