import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { computeGitPaths, renderSummary, type ContentChange } from '../../src/main/content'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import type { ApiClient } from '../support/service'
import { listFiles, startSyncHarness, type SyncHarness } from './support/sync-harness'

interface ApiPage {
  id: string
  title: string
  type: string
  git?: { path: string; oid: string }
  pages?: ApiPage[]
}
interface ApiFile {
  id: string
  downloadURL: string
  git: { path: string }
}

let h: SyncHarness
let spaces: Array<{ id: string; title: string }>
let guide: { id: string; title: string }
let orgId: string
const folderOf = (title: string) => path.join(h.workspace, 'Quire Demo', title)

async function tree(api: ApiClient, spaceId: string) {
  return (await api.call('getCurrentRevision', { params: { spaceId } })).body as { id: string; pages: ApiPage[]; files: ApiFile[] }
}
function flatten(pages: ApiPage[]): ApiPage[] {
  return pages.flatMap((p) => [p, ...flatten(p.pages ?? [])])
}
async function pageAt(spaceId: string, gitPath: string): Promise<ApiPage> {
  const page = flatten((await tree(h.t.api, spaceId)).pages).find((p) => p.git?.path === gitPath)
  if (!page) throw new Error(`no page at ${gitPath}`)
  return page
}

/** A remote edit the way a writer makes one: a change request, its content, a merge. */
async function remoteChange(spaceId: string, changes: ContentChange[]) {
  const api = h.t.api
  const cr = (await api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'remote edit' } })).body as { id: string }
  const update = await api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  expect(update.status).toBe(200)
  const merge = await api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  expect(merge.body).toMatchObject({ result: 'merge' })
}

/** The Git Sync layout of a space as the service itself describes it: page markdown, file bytes, SUMMARY.md. */
async function expectedLayout(spaceId: string): Promise<Map<string, Buffer>> {
  const api = h.t.api
  const revision = await tree(api, spaceId)
  const files = new Map<string, Buffer>()
  for (const page of flatten(revision.pages)) {
    if (!page.git) continue
    const res = await api.call('getPageById', { params: { spaceId, pageId: page.id }, query: { format: 'markdown' } })
    files.set(page.git.path, Buffer.from((res.body as { markdown: string }).markdown))
  }
  for (const file of revision.files) files.set(file.git.path, Buffer.from(await (await fetch(file.downloadURL)).arrayBuffer()))
  const stored = h.t.service.store.repo(RevisionsRepository).get(revision.id)!.tree
  files.set('SUMMARY.md', Buffer.from(renderSummary(stored, computeGitPaths(stored))))
  return files
}

beforeAll(async () => {
  h = await startSyncHarness()
  const orgs = (await h.t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }
  orgId = orgs.items[0].id
  spaces = ((await h.t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId } })).body as { items: Array<{ id: string; title: string }> }).items
  guide = spaces.find((s) => s.title === 'User Guide')!
})
afterAll(() => h.close())

describe('sync down: the demo organization', () => {
  it('mirrors every space into <workspace>/<organization>/<space>/ in exactly the Git Sync layout', async () => {
    const engine = h.engine()
    await engine.resolveSpaces(spaces.map((s) => s.id))
    h.cache.setSelection({ spaces: spaces.map((s) => s.id) })
    const report = await engine.pass()
    expect(report.spaces.map((s) => [s.label, s.state])).toEqual(
      [...spaces].sort((a, b) => a.title.localeCompare(b.title)).map((s) => [`Quire Demo/${s.title}`, 'synced']),
    )
    expect(report.inSync).toBe(true)
    expect(fs.readdirSync(h.workspace)).toEqual(['Quire Demo'])

    for (const space of spaces) {
      const expected = await expectedLayout(space.id)
      const root = folderOf(space.title)
      expect(listFiles(root)).toEqual([...expected.keys()].sort())
      for (const [file, bytes] of expected) expect(fs.readFileSync(path.join(root, file)).equals(bytes), `${space.title}/${file}`).toBe(true)
      expect(fs.existsSync(path.join(root, '.gitbook.yaml'))).toBe(false)
    }

    // One page by hand: front matter, the title as H1, GitBook blocks verbatim, an asset link.
    const guideRoot = folderOf('User Guide')
    expect(fs.readFileSync(path.join(guideRoot, 'README.md'), 'utf8')).toBe(
      [
        '---',
        'description: Edit your documentation offline, in the editor you love.',
        '---',
        '',
        '# Welcome to Quire',
        '',
        'Quire mirrors your documentation spaces into a folder of markdown files and sends your edits back as change requests.',
        '',
        '<figure><img src=".gitbook/assets/sync-overview.png" alt=""><figcaption><p>How Quire keeps your folder and the service in step</p></figcaption></figure>',
        '',
        '{% hint style="info" %}',
        'New here? Start with the quick start: it takes five minutes.',
        '{% endhint %}',
        '',
        '{% content-ref url="getting-started/quick-start.md" %}',
        '[getting-started/quick-start.md](getting-started/quick-start.md)',
        '{% endcontent-ref %}',
        '',
        '* [Install Quire](getting-started/installation.md)',
        '* [Write your first page](guides/writing-pages.md)',
        '* [Review a change request](guides/collaboration/change-requests.md)',
        '',
      ].join('\n'),
    )
    const summary = fs.readFileSync(path.join(guideRoot, 'SUMMARY.md'), 'utf8')
    expect(summary.startsWith('# Table of contents\n\n* [Welcome to Quire](README.md)\n* [Getting started](getting-started/README.md)\n  * [Installation](getting-started/installation.md)\n')).toBe(true)
    expect(listFiles(guideRoot).filter((f) => f.endsWith('.md') && f !== 'SUMMARY.md')).toHaveLength(47)
    expect(fs.readFileSync(path.join(guideRoot, '.gitbook/assets/image (8).png')).subarray(1, 4).toString()).toBe('PNG')

    const status = h.cache.space(guide.id)!
    expect(status).toMatchObject({ state: 'synced', folder: 'User Guide', syncedRevision: (await tree(h.t.api, guide.id)).id })
    expect(h.cache.pageCount(guide.id)).toBe(47)
    expect(h.cache.run(guide.id)).toBeUndefined()
  })

  it('costs one request when nothing changed: the space list of the organization, whatever the number of spaces', async () => {
    const seen = await h.counting(() => h.engine().pass())
    expect(seen).toEqual([`GET /orgs/${orgId}/spaces`])
  })

  it('one remote page changed (a merged change request) costs the space list, the revision, its changes and the page; no link report (issue 29)', async () => {
    const faq = await pageAt(guide.id, 'faq.md')
    await remoteChange(guide.id, [{ operation: 'update_page', page: faq.id, document: { markdown: '# FAQ\n\nUpdated remotely.\n' } }])
    const engine = h.engine()
    h.cache.setSelection({ spaces: [guide.id] })
    const head = (await tree(h.t.api, guide.id)).id
    const seen = await h.counting(() => engine.pass())
    expect([...seen].sort()).toEqual([`GET /orgs/${orgId}/spaces`, `GET /spaces/${guide.id}/revisions/${head}`, `GET /spaces/${guide.id}/revisions/${head}/changes`, `GET /spaces/${guide.id}/revisions/${head}/path/faq`].sort())
    expect(fs.readFileSync(path.join(folderOf('User Guide'), 'faq.md'), 'utf8')).toBe('# FAQ\n\nUpdated remotely.\n')
  })

  it('a remote rename or move becomes a local rename with no download; a deletion a deletion', async () => {
    const root = folderOf('User Guide')
    const slack = await pageAt(guide.id, 'integrations/slack.md')
    const glossary = await pageAt(guide.id, 'reference/glossary.md')
    const reference = await pageAt(guide.id, 'reference/README.md')
    const slackText = fs.readFileSync(path.join(root, 'integrations/slack.md'), 'utf8')
    const glossaryText = fs.readFileSync(path.join(root, 'reference/glossary.md'), 'utf8')
    await remoteChange(guide.id, [
      { operation: 'update_page', page: slack.id, slug: 'slack-app' },
      { operation: 'update_page', page: glossary.id, into: null },
    ])
    const seen = await h.counting(() => h.engine().pass())
    expect(seen.filter((r) => r.includes('/page/'))).toEqual([])
    expect(fs.readFileSync(path.join(root, 'integrations/slack-app.md'), 'utf8')).toBe(slackText)
    expect(fs.readFileSync(path.join(root, 'glossary.md'), 'utf8')).toBe(glossaryText)
    expect(fs.existsSync(path.join(root, 'integrations/slack.md'))).toBe(false)
    expect(fs.existsSync(path.join(root, 'reference/glossary.md'))).toBe(false)
    expect([...(await expectedLayout(guide.id)).keys()].sort()).toEqual(listFiles(root))

    // A page whose children all go away turns from `x/README.md` into `x.md`: a rename, and the folder goes.
    const commandLine = await pageAt(guide.id, 'reference/command-line/README.md')
    const children = flatten(commandLine.pages ?? []).map((p) => p.id)
    await remoteChange(guide.id, [...children.map((id): ContentChange => ({ operation: 'delete_page', page: id })), { operation: 'delete_page', page: reference.id }])
    const report = await h.engine({ allowMassDelete: false }).pass()
    expect(report.inSync).toBe(true)
    expect(fs.existsSync(path.join(root, 'reference'))).toBe(false)
    expect([...(await expectedLayout(guide.id)).keys()].sort()).toEqual(listFiles(root))
  })

  it('keeps a local edit when the remote changes the same page, and still applies everything else', async () => {
    const root = folderOf('User Guide')
    const hints = await pageAt(guide.id, 'guides/using-blocks/hints.md')
    const tabs = await pageAt(guide.id, 'guides/using-blocks/tabs.md')
    const mine = `${fs.readFileSync(path.join(root, 'guides/using-blocks/hints.md'), 'utf8')}\nMy local note.\n`
    fs.writeFileSync(path.join(root, 'guides/using-blocks/hints.md'), mine)
    await remoteChange(guide.id, [
      { operation: 'update_page', page: hints.id, document: { markdown: '# Hints\n\nRemote rewrite.\n' } },
      { operation: 'update_page', page: tabs.id, document: { markdown: '# Tabs\n\nRemote rewrite.\n' } },
    ])
    const report = await h.engine().pass()
    const entry = report.spaces.find((s) => s.spaceId === guide.id)!
    expect(entry.state).toBe('conflict')
    expect(entry.message).toMatch(/1 remote change held back/)
    expect(report.inSync).toBe(false)
    expect(fs.readFileSync(path.join(root, 'guides/using-blocks/hints.md'), 'utf8')).toBe(mine)
    expect(fs.readFileSync(path.join(root, 'guides/using-blocks/tabs.md'), 'utf8')).toBe('# Tabs\n\nRemote rewrite.\n')
    expect(h.cache.space(guide.id)!.issues).toEqual([{ kind: 'local-edit', path: 'guides/using-blocks/hints.md', message: 'guides/using-blocks/hints.md: edited locally, remote change not applied' }])

    // Once the writer puts the file back as it was synced, the next pass applies the remote change.
    await remoteChange(guide.id, [{ operation: 'delete_page', page: tabs.id }])
    fs.writeFileSync(path.join(root, 'guides/using-blocks/hints.md'), mine.replace('\nMy local note.\n', ''))
    expect((await h.engine().pass()).inSync).toBe(true)
    expect(fs.readFileSync(path.join(root, 'guides/using-blocks/hints.md'), 'utf8')).toBe('# Hints\n\nRemote rewrite.\n')
  })

  it('stops before deleting more than half of a space, touches nothing, and goes on when allowed', async () => {
    const handbook = spaces.find((s) => s.title === 'Engineering Handbook')!
    const root = folderOf(handbook.title)
    const before = listFiles(root)
    const head = await tree(h.t.api, handbook.id)
    const [, ...rest] = head.pages
    await remoteChange(handbook.id, rest.map((p): ContentChange => ({ operation: 'delete_page', page: p.id })))
    h.cache.setSelection({ spaces: [handbook.id] })
    const report = await h.engine().pass()
    expect(report.spaces[0]).toMatchObject({ state: 'error' })
    expect(report.spaces[0].message).toMatch(/would delete \d+ of \d+ files; run again with --allow-mass-delete/)
    expect(listFiles(root)).toEqual(before)
    const allowed = await h.engine({ allowMassDelete: true }).pass()
    expect(allowed.inSync).toBe(true)
    expect(listFiles(root)).toEqual([...(await expectedLayout(handbook.id)).keys()].sort())
  })

  it('keeps folder names when a space is renamed', async () => {
    const api = spaces.find((s) => s.title === 'API Reference')!
    await h.t.api.call('updateSpaceById', { params: { spaceId: api.id }, body: { title: 'API (renamed)' } })
    h.cache.setSelection({ spaces: [api.id] })
    const report = await h.engine().pass()
    expect(report.spaces[0]).toMatchObject({ label: 'Quire Demo/API (renamed)', state: 'synced', folder: folderOf('API Reference') })
    expect(fs.existsSync(path.join(h.workspace, 'Quire Demo', 'API (renamed)'))).toBe(false)
  })
})
