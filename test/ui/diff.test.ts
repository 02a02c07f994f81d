import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { buildRenderer } from '../../src/main/headless/renderer-build'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { grant } from '../support/content-fixtures'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { seedSpace, tempDir, type SeededSpace } from '../engine/sync-up/support/workspace'
import { openApp, type OpenedApp } from './open-app'
import { axeViolations, hasChromium, launchBrowser, openSection, screenshotsAtSizes } from './support'

/**
 * Issue 27, item 2: the diff of a change request shows everything a reviewer must see. The writer (the
 * service's owner) writes a change request through the service; the reviewer's app (the real renderer
 * through the headless server and the app's backend, in Chromium) shows it: a page renamed, the table of
 * contents reordered, an image added (with its preview), front matter changed, and main's text exactly
 * as main has it. A new edit of the writer's shows in the open diff by itself; offline, every change
 * request that was opened or listed still shows its diff, as last read.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const t = restartableServiceForFile()
const desktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

/** A 48×32 PNG of two colors: big enough to see in the screenshots. */
function chartPng(): Buffer {
  const width = 48
  const height = 32
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

const FAQ_ON_MAIN = '# FAQ\n\nPut it in a folder.\n\n**Does it sync?** Yes.\n'

describe.skipIf(!hasChromium)('the change request diff in the reviewer’s app', () => {
  let dir: string
  let seeded: SeededSpace
  let browser: Awaited<ReturnType<typeof launchBrowser>>
  let reviewer: OpenedApp
  let cr: { id: string; number: number }
  let other: { id: string; number: number }
  const pages: Record<string, string> = {}

  const card = (id: string) => reviewer.page.locator(`li[data-cr-id="${id}"]`)
  const write = async (changeRequestId: string, changes: unknown[]) => {
    const answer = await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId }, body: { changes } })
    expect(answer.status).toBe(200)
  }

  beforeAll(async () => {
    seeded = await seedSpace(t)
    const collect = (list: Array<{ id: string; slug: string; pages?: unknown[] }>) => list.forEach((p) => ((pages[p.slug] = p.id), collect((p.pages ?? []) as typeof list)))
    collect((await t.api.call('getCurrentRevision', { params: { spaceId: seeded.spaceId } })).body.pages as Array<{ id: string; slug: string }>)
    // Main's FAQ has two paragraphs: the change request joins them.
    const seed = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'FAQ' } })).body as { id: string }
    await write(seed.id, [{ operation: 'update_page', page: pages.faq, document: { markdown: FAQ_ON_MAIN } }])
    await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: seed.id } })

    const rae = t.service.createUser({ displayName: 'Rae Reviewer', email: 'rae@example.com' })
    t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, rae.id, null)
    grant(t.service, seeded.spaceId, rae.id, 'review')

    // The writer's change request: every kind of change.
    cr = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Reorganize the guide' } })).body as { id: string; number: number }
    await write(cr.id, [
      { operation: 'update_page', page: pages.faq, document: { markdown: '# FAQ\n\nPut it in a new folder. **Does it sync?** Yes, always.\n' }, at: 0 },
      { operation: 'update_page', page: pages['getting-started'], slug: 'first-steps' },
      { operation: 'update_page', page: pages.home, document: { markdown: '---\ndescription: Where the guide starts\nicon: house\n---\n\n# Home\n\nWelcome to the guide.\n\n![Chart](./chart)\n' } },
      { operation: 'insert_files', files: [{ ref: 'chart', name: 'chart.png', contentType: 'image/png', base64: chartPng().toString('base64') }] },
    ])
    await t.api.call('updateChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id }, body: { status: 'open' } })
    // A second one, which the reviewer only sees listed before going offline.
    other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Install notes' } })).body as { id: string; number: number }
    await write(other.id, [{ operation: 'update_page', page: pages.install, document: { markdown: '# Install\n\nRun the offline installer.\n' } }])

    dir = tempDir('quire-ui-diff-')
    const rendererDir = path.join(dir, 'renderer')
    await buildRenderer(rendererDir)
    browser = await launchBrowser()
    reviewer = await openApp({ dataDir: path.join(dir, 'reviewer'), rendererDir, desktop, endpoint: t.service.origin, token: rae.token, select: [seeded.spaceId], settled: true, page: browser.page })
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await reviewer?.close()
    if (dir) fs.rmSync(dir, { recursive: true, force: true })
  })

  it('lists the rename, the new order of SUMMARY.md, the image with its preview and the front matter, and shows main’s text exactly', async () => {
    await openSection(reviewer.page, /^Change requests/)
    await card(cr.id).getByRole('button', { name: 'Show changes' }).click()
    const changes = card(cr.id).locator('.cr-changes')
    await changes.getByText(/the table of contents changed/).waitFor({ timeout: 30_000 })

    // The renamed page, old → new.
    await changes.getByText('getting-started.md', { exact: true }).waitFor()
    await changes.getByText('first-steps.md', { exact: true }).waitFor()
    // The FAQ's "On main" pane is main's markdown, blank line and all.
    const faq = changes.locator('details.cr-page', { hasText: 'faq.md' })
    expect(await faq.locator('.diff-side').first().locator('pre').textContent()).toBe(FAQ_ON_MAIN)
    // SUMMARY.md: the FAQ first in the change request, last on main.
    const toc = changes.locator('details.cr-summary')
    await toc.getByText('SUMMARY.md').waitFor()
    const [tocMain, tocHere] = await toc.locator('pre').allTextContents()
    expect(tocHere.indexOf('[FAQ]')).toBeLessThan(tocHere.indexOf('[Home]'))
    expect(tocMain.indexOf('[FAQ]')).toBeGreaterThan(tocMain.indexOf('[Home]'))
    // The image, previewed from its bytes.
    const preview = changes.getByRole('img', { name: 'Preview of chart.png' })
    await preview.waitFor()
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(48)
    // The front matter Home gains, key by key.
    const front = changes.getByRole('table', { name: 'Front matter of Home' })
    await front.getByRole('row', { name: /description.*Where the guide starts/ }).waitFor()
    await front.getByRole('row', { name: /icon.*house/ }).waitFor()

    await changes.evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await screenshotsAtSizes(reviewer.page, 'diff-01-everything-listed')
    await toc.evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await screenshotsAtSizes(reviewer.page, 'diff-01b-summary-and-image')
    expect(await axeViolations(reviewer.page)).toEqual([])
  }, 120_000)

  it('an open diff shows the writer’s new edit by itself', async () => {
    await write(cr.id, [{ operation: 'update_page', page: pages.faq, document: { markdown: '# FAQ\n\nPut it in a new folder. **Does it sync?** Yes, live.\n' } }])
    // No click: the open diff follows the change request.
    await card(cr.id).locator('.cr-changes').getByText('live.', { exact: false }).first().waitFor({ timeout: 30_000 })
    await card(cr.id).locator('.cr-changes').evaluate((el) => el.scrollIntoView({ block: 'start' }))
    await screenshotsAtSizes(reviewer.page, 'diff-02-live-edit')
  }, 60_000)

  it('offline, the diffs of change requests opened or listed online are read from the cache', async () => {
    // The list (a Refresh) keeps the diff of every live change request it shows, the unopened one too.
    await reviewer.page.getByRole('button', { name: 'Refresh' }).click()
    await card(other.id).waitFor({ timeout: 30_000 })
    const cacheFile = path.join(dir, 'reviewer', 'cache.db')
    const kept = () => {
      const db = new Database(cacheFile, { readonly: true, fileMustExist: true })
      try {
        return (db.prepare('SELECT change_request_id FROM change_request_diffs').all() as Array<{ change_request_id: string }>).map((r) => r.change_request_id).sort()
      } finally {
        db.close()
      }
    }
    await expect.poll(kept, { timeout: 30_000 }).toEqual([cr.id, other.id].sort())

    await t.stop()
    try {
      await reviewer.page.getByRole('button', { name: 'Sync now' }).click()
      await reviewer.page.locator('#overall-state').getByText('Offline', { exact: true }).waitFor({ timeout: 30_000 })
      await card(cr.id).getByRole('button', { name: 'Hide changes' }).click()
      await card(cr.id).getByRole('button', { name: 'Show changes' }).click()
      await card(cr.id).getByText(/^Offline: these changes as last read/).waitFor({ timeout: 20_000 })
      await card(cr.id).getByRole('img', { name: 'Preview of chart.png' }).waitFor()
      await card(other.id).getByRole('button', { name: 'Show changes' }).click()
      await card(other.id).getByText('Run the offline installer.', { exact: false }).first().waitFor({ timeout: 20_000 })
      expect(await reviewer.page.getByText('fetch failed').allTextContents()).toEqual([])
      await card(other.id).locator('.cr-changes').evaluate((el) => el.scrollIntoView({ block: 'start' }))
      await screenshotsAtSizes(reviewer.page, 'diff-03-offline-from-cache')
      expect(await axeViolations(reviewer.page)).toEqual([])
    } finally {
      await t.start()
    }
  }, 120_000)

  it('a page new on main is in the Comments page picker after the pass that brought it, without Refresh (issue 27, item 6)', async () => {
    await openSection(reviewer.page, 'Comments')
    const picker = reviewer.page.getByLabel('On page')
    const labels = async () => (await picker.locator('option').allTextContents()).map((l) => l.trim())
    await expect.poll(labels, { timeout: 30_000 }).toContain('FAQ')
    const adding = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Glossary' } })).body as { id: string }
    await write(adding.id, [{ operation: 'insert_page', document: { markdown: '# Glossary\n\nTerms.\n' }, slug: 'glossary' }])
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: adding.id } })).body.result).toBe('merge')
    // The next pass (Sync now stands for the timer) brings the page down; the picker reads the pages again after it.
    await reviewer.page.getByRole('button', { name: 'Sync now' }).click()
    await expect.poll(labels, { timeout: 30_000 }).toContain('Glossary')
    await screenshotsAtSizes(reviewer.page, 'diff-04-new-page-in-picker')
    expect(await axeViolations(reviewer.page)).toEqual([])
  }, 90_000)
})
