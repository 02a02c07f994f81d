import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { openChangeRequestMarkdown, openChangeRequests, pageIdAt, seedSpace, type SeededSpace } from '../engine/sync-up/support/workspace'
import { openAppInBrowser, type AppInBrowser } from './open-app'
import { axeViolations, hasChromium, openSection } from './support'

/**
 * Issue 28, a faithful preview: the app (the real renderer through the headless server `quire serve`
 * runs, over the app's backend and the real local service, in Chromium) previews a page of the space
 * folder with every GitBook block kind as the service shows it: the hint has its style, tabs switch,
 * details open, the image comes from .gitbook/assets, a page link opens that page's preview, nothing
 * remote is fetched and no script runs; it follows a save of the file; and a change request's page is
 * previewed on main and in the change request side by side. Screenshots go to /tmp/preview-shots.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const SHOTS = '/tmp/preview-shots'
const t = restartableServiceForFile()
const desktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

/** A 96×48 PNG of two colors. */
function chartPng(): Buffer {
  const [width, height] = [96, 48]
  const rows: Buffer[] = []
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3)
    for (let x = 0; x < width; x++) row.set(x < width / 2 ? [40, 110, 200] : [230, 140, 30], 1 + x * 3)
    rows.push(row)
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data])
    const out = Buffer.alloc(8 + data.length + 4)
    out.writeUInt32BE(data.length, 0)
    body.copy(out, 4)
    out.writeUInt32BE(zlib.crc32(body) >>> 0, 8 + data.length)
    return out
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))])
}

const BLOCKS = `# Configure

Edit the settings, then read the [FAQ](../faq.md).

{% hint style="warning" %}
Back up **first**.
{% endhint %}

{% tabs %}
{% tab title="macOS" %}
Run \`brew install quire\`.
{% endtab %}
{% tab title="Linux" %}
Run \`apt install quire\`.
{% endtab %}
{% endtabs %}

{% code title="settings.json" %}
\`\`\`json
{ "interval": 60 }
\`\`\`
{% endcode %}

{% embed url="https://www.youtube.com/watch?v=abc123" %}

{% content-ref url="install.md" %}
[install.md](install.md)
{% endcontent-ref %}

{% file src="../.gitbook/assets/logo.png" %}

{% stepper %}
{% step %}
### Download
Get the installer.
{% endstep %}
{% step %}
### Run it
Follow the steps.
{% endstep %}
{% endstepper %}

{% columns %}
{% column %}
Left column.
{% endcolumn %}
{% column %}
Right column.
{% endcolumn %}
{% endcolumns %}

<details>
<summary>Advanced options</summary>

Hidden until opened.

</details>

<figure><img src="../.gitbook/assets/chart.png" alt="Usage chart" onerror="window.pwned = 1"><figcaption><p>Usage by month</p></figcaption></figure>

$$
E = mc^2
$$

![Tracker](https://tracker.example/pixel.png) <script>window.pwned = 2</script> [click](javascript:window.pwned=3)
`

describe.skipIf(!hasChromium)('the page preview in the app', () => {
  let seeded: SeededSpace
  let app: AppInBrowser
  let page: Page
  let folder: string
  const remote: string[] = []
  const preview = () => page.locator('article.page-preview')

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true })
    seeded = await seedSpace(t)
    app = await openAppInBrowser('quire-preview-ui-', { desktop, endpoint: t.service.origin, token: t.service.token, select: [seeded.spaceId], settled: true })
    page = app.page
    folder = path.join(app.workspace, 'Acme', 'Docs')
    const origin = new URL(app.server.url).origin
    page.on('request', (request) => {
      if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) remote.push(request.url())
    })
    fs.writeFileSync(path.join(folder, '.gitbook', 'assets', 'chart.png'), chartPng())
    fs.writeFileSync(path.join(folder, 'guide', 'configure.md'), BLOCKS)
  }, 120_000)

  afterAll(async () => {
    await app?.close()
  })

  it('shows every block kind as the service does, sanitized, with axe finding nothing', async () => {
    await openSection(page, 'Preview')
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: 'Configure', exact: true }).click()
    const article = preview()
    await article.getByRole('heading', { name: 'Configure', level: 1 }).waitFor({ timeout: 20_000 })

    // hint, with its style
    const hint = article.locator('.gb-hint')
    await expect.poll(() => hint.getAttribute('class')).toBe('gb-hint gb-hint-warning')
    expect(await hint.getAttribute('role')).toBe('note')
    expect(await hint.innerText()).toContain('Back up first.')
    // tabs switch
    const tabs = article.getByRole('tablist')
    expect(await tabs.getByRole('tab').allInnerTexts()).toEqual(['macOS', 'Linux'])
    expect(await article.getByRole('tabpanel').innerText()).toContain('brew install quire')
    await tabs.getByRole('tab', { name: 'Linux' }).click()
    expect(await tabs.getByRole('tab', { name: 'Linux' }).getAttribute('aria-selected')).toBe('true')
    expect(await article.getByRole('tabpanel').innerText()).toContain('apt install quire')
    expect(await article.getByText('brew install quire').isVisible()).toBe(false)
    // code with its title, embed as a link, content-ref, file, stepper, columns
    expect(await article.locator('figure.gb-code figcaption').innerText()).toBe('settings.json')
    expect(await article.locator('figure.gb-code code.language-json').innerText()).toContain('"interval": 60')
    expect(await article.locator('.gb-embed a').getAttribute('href')).toBe('https://www.youtube.com/watch?v=abc123')
    expect(await article.locator('iframe').count()).toBe(0)
    expect(await article.locator('.gb-content-ref a').getAttribute('data-preview-path')).toBe('guide/install.md')
    expect(await article.locator('.gb-file').innerText()).toContain('logo.png')
    expect(await article.locator('ol.gb-stepper > li.gb-step').allInnerTexts()).toEqual([expect.stringContaining('Download'), expect.stringContaining('Run it')])
    expect(await article.locator('.gb-columns > .gb-column').count()).toBe(2)
    // details open
    const details = article.locator('details.gb-details')
    expect(await article.getByText('Hidden until opened.').isVisible()).toBe(false)
    await details.locator('summary').click()
    await article.getByText('Hidden until opened.').waitFor({ state: 'visible' })
    // figure: the image from .gitbook/assets loaded, its caption
    const chart = article.getByRole('img', { name: 'Usage chart' })
    await expect.poll(() => chart.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(96)
    expect(await article.locator('figure figcaption').last().innerText()).toBe('Usage by month')
    // math
    // math: MathML (the browser lays it out), the TeX's letters in it
    expect(await article.locator('div.gb-math math mi').first().evaluate((mi) => [mi.namespaceURI, mi.textContent])).toEqual(['http://www.w3.org/1998/Math/MathML', 'E'])
    // nothing remote, no script ran, no javascript: address
    expect(await article.locator('.gb-remote-image').innerText()).toContain('Remote image not loaded (Tracker)')
    expect(await article.locator('img').count()).toBe(1)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(await article.locator('a', { hasText: 'click' }).getAttribute('href')).toBeNull()
    expect(await article.innerHTML()).not.toMatch(/onerror|<script|javascript:/i)

    await page.screenshot({ path: path.join(SHOTS, 'preview-blocks-light.png'), fullPage: true })
    await page.emulateMedia({ colorScheme: 'dark' })
    await page.screenshot({ path: path.join(SHOTS, 'preview-blocks-dark.png'), fullPage: true })
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 640, height: 800 })
    await page.screenshot({ path: path.join(SHOTS, 'preview-blocks-640.png') })
    await page.setViewportSize({ width: 1200, height: 860 })
    expect(await axeViolations(page)).toEqual([])
    expect(remote).toEqual([])
  }, 90_000)

  it('a link opens the target page’s preview, and Back returns', async () => {
    await preview().getByRole('link', { name: 'FAQ' }).click()
    await preview().getByRole('heading', { name: 'FAQ', level: 1 }).waitFor({ timeout: 20_000 })
    await page.getByRole('button', { name: 'Back' }).click()
    await preview().getByRole('heading', { name: 'Configure', level: 1 }).waitFor({ timeout: 20_000 })
  }, 60_000)

  it('follows a save of the file', async () => {
    fs.writeFileSync(path.join(folder, 'guide', 'configure.md'), BLOCKS.replace('Edit the settings', 'Edit the saved settings'))
    await preview().getByText('Edit the saved settings').waitFor({ timeout: 30_000 })
    await page.screenshot({ path: path.join(SHOTS, 'preview-after-save.png') })
  }, 60_000)

  it('a change request’s page is previewed on main and in the change request, side by side', async () => {
    // The saves above went out as the writer's change request.
    const configureId = await pageIdAt(t.api, seeded.spaceId, 'guide/configure.md')
    await expect.poll(async () => (await openChangeRequestMarkdown(t.api, seeded.spaceId, configureId)) ?? '', { timeout: 30_000 }).toContain('Edit the saved settings')
    const cr = (await openChangeRequests(t.api, seeded.spaceId))[0]
    await openSection(page, /^Change requests/)
    const card = page.locator(`li[data-cr-id="${cr.id}"]`)
    await card.waitFor({ timeout: 30_000 })
    await card.getByRole('button', { name: 'Show changes' }).click()
    const configure = card.locator('details.cr-page', { hasText: 'Configure' })
    await configure.getByRole('button', { name: 'Preview side by side' }).click()
    const sides = configure.getByRole('group', { name: /previewed side by side/ })
    const main = sides.getByRole('article', { name: 'Configure on main' })
    const mine = sides.getByRole('article', { name: 'Configure in this change request' })
    await mine.locator('.gb-hint-warning').waitFor({ timeout: 20_000 })
    expect(await main.innerText()).toContain('Edit the settings.')
    expect(await main.locator('.gb-hint').count()).toBe(0)
    expect(await mine.innerText()).toContain('Edit the saved settings')
    await configure.scrollIntoViewIfNeeded()
    await page.screenshot({ path: path.join(SHOTS, 'preview-side-by-side.png'), fullPage: true })
    expect(await axeViolations(page)).toEqual([])
  }, 90_000)
})
