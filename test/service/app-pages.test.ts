import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { APP_PAGE_CSP } from '../../src/main/service/api/app-pages'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

/**
 * The pages behind `urls.app` of a space and of a change request ("Open in browser" in the app): real
 * HTML over loopback HTTP, opened with no token, as a browser would, from the links the API gives out.
 */
describe('app pages behind urls.app', () => {
  let t: TestService
  let s: ArrangedSpace
  const hostile = `Fix <script>alert("x")</script> & "quotes" 'too'`
  let crUrl: string
  let spaceUrl: string

  beforeAll(async () => {
    t = await startTestService()
    s = arrangeSpace(t.service, [page('home', '# Home\n\nWelcome.\n'), page('guide', '# Guide\n\nOld text.\n'), page('faq', '# FAQ\n\nQ.\n')], { title: 'Docs <b>bold</b>' })
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: hostile } })).body as { id: string; urls: { app: string } }
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: s.spaceId, changeRequestId: cr.id },
      body: {
        changes: [
          { operation: 'update_page', page: s.pages.guide, document: { markdown: '# Guide\n\nNew text.\n' } },
          { operation: 'insert_page', at: 3, document: { markdown: '# Setup <img src=x onerror=alert(1)>\n\nSteps.\n' } },
        ],
      },
    })
    crUrl = cr.urls.app
    spaceUrl = (await t.api.call('getSpaceById', { params: { spaceId: s.spaceId } })).body.urls.app
  })
  afterAll(() => t.close())

  const get = async (url: string) => {
    const res = await fetch(url)
    return { status: res.status, type: res.headers.get('content-type'), csp: res.headers.get('content-security-policy'), text: await res.text() }
  }

  it("answers the change request's urls.app with a read-only page: its title, status and pages changed, all escaped, no script, a strict CSP", async () => {
    expect(crUrl).toMatch(new RegExp(`^${t.service.origin}/app/spaces/${s.spaceId}/change-requests/1\\?sig=[\\w-]{43}$`))
    const answer = await get(crUrl)
    expect(answer.status).toBe(200)
    expect(answer.type).toBe('text/html; charset=utf-8')
    expect(answer.csp).toBe(APP_PAGE_CSP)
    expect(answer.csp).toMatch(/^default-src 'none'; style-src 'sha256-[\w+/=]+';/)
    expect(answer.text).toContain('<h1>Fix &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;too&#39;</h1>')
    expect(answer.text).toContain('<title>#1 Fix &lt;script&gt;')
    expect(answer.text).toContain('<span class="badge">draft</span>')
    expect(answer.text).toContain('2 pages changed')
    expect(answer.text).toMatch(/Edited<\/span> Guide/)
    expect(answer.text).toContain('New page</span> Setup &lt;img src=x onerror=alert(1)&gt;')
    expect(answer.text).toContain('Docs &lt;b&gt;bold&lt;/b&gt;')
    // Nothing the store holds becomes markup: the only tags are the page's own.
    expect(answer.text).not.toMatch(/<script|<img|<b>/i)
  })

  it("answers the space's urls.app with its title and open change requests, linked to their signed pages", async () => {
    const answer = await get(spaceUrl)
    expect(answer.status).toBe(200)
    expect(answer.type).toBe('text/html; charset=utf-8')
    expect(answer.text).toContain('<h1>Docs &lt;b&gt;bold&lt;/b&gt;</h1>')
    expect(answer.text).toContain(`href="${crUrl.replaceAll('&', '&amp;')}"`)
  })

  it('refuses links it did not give out, other methods, and pages it does not serve', async () => {
    const path = new URL(crUrl).pathname
    expect((await get(`${t.service.origin}${path}`)).status).toBe(404) // no signature
    expect((await get(`${t.service.origin}${path}?sig=${'A'.repeat(43)}`)).status).toBe(404)
    expect((await get(crUrl.replace('/change-requests/1?', '/change-requests/2?'))).status).toBe(404) // the signature is the path's
    expect((await fetch(crUrl, { method: 'POST' })).status).toBe(405)
    const org = (await t.api.call('getOrganizationById', { params: { organizationId: s.orgId } })).body.urls.app as string
    expect(org).not.toContain('sig=')
    expect((await get(org)).status).toBe(404)
  })
})
