import fs from 'node:fs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { removeWorkstation, seededWorkstation, serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pagesOf, PNG, SEED_PAGES, Workstation } from './support/workspace'

const t = serviceForFile()

let ws: Workstation
beforeEach(async () => {
  ws = await seededWorkstation(t)
  await ws.pull()
})
afterEach(() => removeWorkstation(ws))

const idOfPath = async (path: string) => [...pagesOf(await mainRevision(t.api, ws.seeded.spaceId))].find(([, p]) => p.path === path)![0]

describe('sync up against the real local service', () => {
  it('a file synced down and saved unchanged creates nothing', async () => {
    expect(ws.read('guide/install.md')).toBe(SEED_PAGES.install)
    ws.write('guide/install.md', ws.read('guide/install.md'))
    const result = await ws.push()
    expect(result.planned).toBe(0)
    expect(result.changeRequest).toBeUndefined()
    expect(await openChangeRequests(t.api, ws.seeded.spaceId)).toEqual([])
  })

  it('an edit gives one change request with exactly that page changed', async () => {
    const main = await mainRevision(t.api, ws.seeded.spaceId)
    ws.write('guide/install.md', '# Install\n\nRun the installer, then restart.\n')
    const result = await ws.push()
    expect(result.failures).toEqual([])
    expect(result.planned).toBe(1)
    const crs = await openChangeRequests(t.api, ws.seeded.spaceId)
    expect(crs).toHaveLength(1)
    expect(crs[0].subject).toBe('Edit Install')
    const cr = await changeRequestRevision(t.api, ws.seeded.spaceId, crs[0].id)
    const diff = changedPages(main, cr)
    expect(diff).toEqual({ changed: [await idOfPath('guide/install.md')], added: [], removed: [] })
    const page = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: ws.seeded.spaceId, changeRequestId: crs[0].id, pageId: diff.changed[0] }, query: { format: 'markdown' } })).body
    expect(page.markdown).toBe('# Install\n\nRun the installer, then restart.\n')

    // A later edit of another page goes to the same change request, whose subject grows.
    ws.write('faq.md', '# FAQ\n\nQuestions and answers.\n')
    await ws.push()
    const again = await openChangeRequests(t.api, ws.seeded.spaceId)
    expect(again.map((c) => c.id)).toEqual([crs[0].id])
    expect(again[0].subject).toBe('Edit Install, FAQ')
    expect(changedPages(main, await changeRequestRevision(t.api, ws.seeded.spaceId, crs[0].id)).changed.sort()).toEqual(
      [await idOfPath('guide/install.md'), await idOfPath('faq.md')].sort(),
    )
    // Pushing again with nothing new sends nothing.
    expect((await ws.push()).planned).toBe(0)
  })

  it('front matter and the H1 reach the service as metadata and title; GitBook blocks go byte for byte', async () => {
    const text = [
      '---',
      'description: How to install it',
      '---',
      '',
      '# Installing',
      '',
      '{% hint style="info" %}',
      'Use *v2* or later_ok_ \\{% raw %}.',
      '{% endhint %}',
      '',
      '{% tabs %}',
      '{% tab title="macOS" %}',
      '* brew install',
      '{% endtab %}',
      '{% endtabs %}',
      '',
    ].join('\n')
    ws.write('guide/install.md', text)
    await ws.push()
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    const id = await idOfPath('guide/install.md')
    const page = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: ws.seeded.spaceId, changeRequestId: cr.id, pageId: id }, query: { format: 'markdown' } })).body
    expect(page.markdown).toBe(text)
    expect(page.title).toBe('Installing')
    expect(page.description).toBe('How to install it')
    expect(page.markdown.match(/# Installing/g)).toHaveLength(1)
  })

  it('a new page goes into the page its folder names, where SUMMARY.md lists it', async () => {
    const main = await mainRevision(t.api, ws.seeded.spaceId)
    ws.write('guide/upgrade.md', '# Upgrade\n\nFrom v1 to v2.\n')
    ws.write('SUMMARY.md', ws.read('SUMMARY.md').replace('  * [Install](guide/install.md)\n', '  * [Install](guide/install.md)\n  * [Upgrade](guide/upgrade.md)\n'))
    const result = await ws.push()
    expect(result.failures).toEqual([])
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    const after = await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)
    const diff = changedPages(main, after)
    expect(diff.added).toHaveLength(1)
    const added = pagesOf(after).get(diff.added[0])!
    expect(added).toMatchObject({ title: 'Upgrade', path: 'guide/upgrade.md', parent: await idOfPath('guide/README.md') })
    const guide = after.pages.find((p) => 'slug' in p && p.slug === 'guide')!
    expect(('pages' in guide ? guide.pages : []).map((p) => p.title)).toEqual(['Install', 'Upgrade', 'Configure'])
  })

  it('a deleted file deletes its page', async () => {
    const main = await mainRevision(t.api, ws.seeded.spaceId)
    const faq = await idOfPath('faq.md')
    fs.rmSync(ws.file('faq.md'))
    await ws.push()
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    expect(changedPages(main, await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id))).toEqual({ changed: [], added: [], removed: [faq] })
    // Sync down does not bring the file back while the change request carries the deletion.
    await ws.pull()
    expect(fs.existsSync(ws.file('faq.md'))).toBe(false)
  })

  it('deleting a page file whose subpages stay deletes only that page: the subpages move out first', async () => {
    const guide = await idOfPath('guide/README.md')
    const install = await idOfPath('guide/install.md')
    fs.rmSync(ws.file('guide/README.md'))
    const result = await ws.push()
    expect(result.failures).toEqual([])
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    const after = await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)
    const pages = pagesOf(after)
    expect(pages.has(guide)).toBe(false)
    expect(pages.get(install)).toMatchObject({ parent: undefined, path: 'install.md' })
    expect(changedPages(await mainRevision(t.api, ws.seeded.spaceId), after).removed).toEqual([guide])
  })

  it('a rename changes the slug, a move changes the parent; neither makes a new page', async () => {
    const main = await mainRevision(t.api, ws.seeded.spaceId)
    const faq = await idOfPath('faq.md')
    const start = await idOfPath('getting-started.md')
    fs.renameSync(ws.file('faq.md'), ws.file('questions.md'))
    fs.renameSync(ws.file('getting-started.md'), ws.file('guide/getting-started.md'))
    const result = await ws.push()
    expect(result.failures).toEqual([])
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    const after = await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)
    const diff = changedPages(main, after)
    expect(diff.added).toEqual([])
    expect(diff.removed).toEqual([])
    const pages = pagesOf(after)
    expect(pages.get(faq)).toMatchObject({ path: 'questions.md', slug: 'questions' })
    expect(pages.get(start)).toMatchObject({ path: 'guide/getting-started.md', parent: await idOfPath('guide/README.md') })
    await ws.pull()
    expect(fs.existsSync(ws.file('faq.md'))).toBe(false)
    expect(fs.existsSync(ws.file('getting-started.md'))).toBe(false)
  })

  it('a new image linked from a page is uploaded with the page and linked through its ref', async () => {
    const png = Buffer.concat([PNG, Buffer.from('new')])
    ws.write('.gitbook/assets/diagram.png', png)
    ws.write('guide/install.md', `${SEED_PAGES.install}\n![Diagram](../.gitbook/assets/diagram.png)\n`)
    const result = await ws.push()
    expect(result.failures).toEqual([])
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    const after = await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)
    const file = after.files.find((f) => f.name === 'diagram.png')!
    expect(file.size).toBe(png.byteLength)
    const install = [...pagesOf(after)].find(([, p]) => p.path === 'guide/install.md')![0]
    const page = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: ws.seeded.spaceId, changeRequestId: cr.id, pageId: install }, query: { format: 'markdown' } })).body
    expect(page.markdown).toContain('![Diagram](../.gitbook/assets/diagram.png)')
  })

  it('an image over the upload limit is reported, not dropped silently', async () => {
    ws.write('.gitbook/assets/huge.png', Buffer.alloc(1024 * 1024 + 1, 1))
    ws.write('faq.md', `${SEED_PAGES.faq}\n![Huge](.gitbook/assets/huge.png)\n`)
    const result = await ws.push()
    expect(result.reports).toEqual([expect.objectContaining({ kind: 'too-large', path: '.gitbook/assets/huge.png' })])
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    expect((await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)).files.some((f) => f.name === 'huge.png')).toBe(false)
  })

  it('every new file under .gitbook/assets goes up, linked or not (a cover: image, a download); one over the limit is reported; a push after sends nothing again', async () => {
    const cover = Buffer.concat([PNG, Buffer.from('cover')])
    const sheet = Buffer.from('%PDF-1.4 a price sheet')
    ws.write('.gitbook/assets/cover.png', cover)
    ws.write('.gitbook/assets/price sheet.pdf', sheet)
    ws.write('.gitbook/assets/poster.png', Buffer.alloc(1024 * 1024 + 1, 2))
    ws.write('faq.md', `---\ncover: .gitbook/assets/cover.png\n---\n\n${SEED_PAGES.faq}`)
    const result = await ws.push()
    expect(result.failures).toEqual([])
    expect(result.reports).toEqual([expect.objectContaining({ kind: 'too-large', path: '.gitbook/assets/poster.png', message: expect.stringContaining('not uploaded') })])
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    const files = (await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)).files
    expect(files.find((f) => f.name === 'cover.png')?.size).toBe(cover.byteLength)
    expect(files.find((f) => f.name === 'price sheet.pdf')?.size).toBe(sheet.byteLength)
    expect(files.some((f) => f.name === 'poster.png')).toBe(false)
    const again = await ws.push()
    expect(again.failures).toEqual([])
    expect((await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)).files).toHaveLength(files.length)
  })
})
