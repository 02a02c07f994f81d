import fs from 'node:fs'
import path from 'node:path'
import type { Revision } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { renderTagsFile } from '../../src/main/engine/sync/tags-file'
import { removeWorkstation, serviceForFile } from './sync-up/support/hooks'
import { openChangeRequests, seedSpace, tempDir, Workstation } from './sync-up/support/workspace'

/**
 * Issue 14 (fidelity): `.gitbook/tags.yaml` mirrored from the revision's tags (spec `Revision.tags`),
 * written as Git Sync writes it. The local service keeps no tags (its revisions answer `tags: []`), so
 * the revision is given tags on its way to the client, as a hosted service would answer.
 */

const CORPUS_TAGS = path.resolve(__dirname, '../../../shared/corpus/gitsync/gitbook-docs/.gitbook/tags.yaml')
// The spec's colours are an enum of these strings.
const TAGS = [
  { slug: 'beta', label: 'Beta', color: 'default', icon: 'flask-round-potion' },
  { slug: 'new', label: 'New', color: '$primary', icon: 'sparkles' },
  { slug: 'party', label: 'Party: time', color: 'green', emoji: '🎉' },
] as unknown as Revision['tags']

const t = serviceForFile()
let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})

/** The service's answers, with `tags` on every revision. */
function withTags(tags: () => Revision['tags']): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init)
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    if (!/^\/v1\/spaces\/[^/]+\/content$/.test(url.pathname) || !response.ok) return response
    const revision = (await response.json()) as Revision
    return new Response(JSON.stringify({ ...revision, tags: tags() }), { status: response.status, headers: { 'Content-Type': 'application/json' } })
  }
}

describe('.gitbook/tags.yaml', () => {
  it('renders as Git Sync writes it (keys in its order, default colour left out, an emoji kept)', () => {
    expect(renderTagsFile(TAGS)).toBe(
      ['- tag: beta', '  label: Beta', '  icon: flask-round-potion', '- tag: new', '  label: New', '  icon: sparkles', '  color: $primary', "- tag: party", "  label: 'Party: time'", '  emoji: 🎉', '  color: green', ''].join('\n'),
    )
    expect(renderTagsFile([])).toBeUndefined()
  })

  it.skipIf(!fs.existsSync(CORPUS_TAGS))('gives back the corpus gitbook-docs tags.yaml byte for byte from the tags it lists', () => {
    const original = fs.readFileSync(CORPUS_TAGS, 'utf8')
    const items = (original.match(/^- [\s\S]*?(?=^- |(?![\s\S]))/gm) ?? []).map((item) => Object.fromEntries(item.split('\n').filter(Boolean).map((line) => line.replace(/^[- ] /, '').split(/: (.*)/).slice(0, 2))))
    const tags = items.map((i) => ({ slug: i.tag, label: i.label, color: i.color ?? 'default', ...(i.emoji ? { emoji: i.emoji } : { icon: i.icon }) })) as Revision['tags']
    expect(tags.length).toBeGreaterThan(3)
    expect(renderTagsFile(tags)).toBe(original)
  })

  it('is mirrored by sync down, follows the service, is never pushed, and an edit of it stays local', async () => {
    const seeded = await seedSpace(t)
    let tags = TAGS
    ws = new Workstation(t, seeded, tempDir('quire-tags-'), { gateway: { fetch: withTags(() => tags) } })
    expect((await ws.pull()).issues).toEqual([])
    expect(ws.read('.gitbook/tags.yaml')).toBe(renderTagsFile(TAGS))

    // Nothing to send: the content API has no operation on tags.
    await ws.push()
    expect(await openChangeRequests(t.api, seeded.spaceId)).toEqual([])

    // The service's tags change (a new revision): the file follows.
    tags = TAGS.slice(0, 2)
    const seed = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'x' } })).body as { id: string }
    await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: seed.id }, body: { changes: [{ operation: 'insert_page', slug: 'more', document: { markdown: '# More\n' } }] } })
    await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: seed.id } })
    await ws.pull()
    expect(ws.read('.gitbook/tags.yaml')).toBe(renderTagsFile(TAGS.slice(0, 2)))

    // The writer's edit stays (sync down keeps it and says so) and is not sent.
    ws.write('.gitbook/tags.yaml', `${ws.read('.gitbook/tags.yaml')}- tag: mine\n  label: Mine\n`)
    await ws.push()
    expect(await openChangeRequests(t.api, seeded.spaceId)).toEqual([])
    tags = []
    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'y' } })).body as { id: string }
    await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: other.id }, body: { changes: [{ operation: 'insert_page', slug: 'again', document: { markdown: '# Again\n' } }] } })
    await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })
    const pulled = await ws.pull()
    expect(ws.read('.gitbook/tags.yaml')).toContain('tag: mine')
    expect(JSON.stringify(pulled.issues)).toContain('.gitbook/tags.yaml')
  })
})
