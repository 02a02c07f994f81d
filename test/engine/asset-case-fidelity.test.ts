import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChangeRequest, Revision } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { extractLinks, resolveRelativePath } from '../../src/main/content'
import { planSpaceSync } from '../../src/main/engine/sync/planner'
import { foldsCase } from '../../src/main/engine/workspace/case-folding'
import { removeWorkstation, serviceForFile } from './sync-up/support/hooks'
import { mainRevision, openChangeRequests, PNG, seedSpace, tempDir, Workstation, type SeededSpace } from './sync-up/support/workspace'

/**
 * Issue 14 (fidelity): asset names that differ only by case (`Image.png` and `image.png` in one space).
 * Git Sync keeps both names as they are (a git tree is case-sensitive; real Git Sync trees hold such
 * pairs), each page link naming its own file; the service does the same. A space folder on a
 * case-sensitive disk is the Git Sync tree byte for byte; on a disk that folds case one file gets a
 * local name and the page links are written to it, so every link opens the right bytes there too, and a
 * push sends the service's names back. The case-folding disk is forced with QUIRE_FOLD_CASE=1.
 */

const t = serviceForFile()
const UPPER = Buffer.concat([PNG, Buffer.from('the upper-case file')])
const LOWER = Buffer.concat([PNG, Buffer.from('the lower-case file')])
const PICS = '# Pics\n\n![up](.gitbook/assets/Image.png)\n\n<figure><img src=".gitbook/assets/image.png" alt=""><figcaption></figcaption></figure>\n\n[lower, anchored](.gitbook/assets/image.png#x)\n'

const workstations: Workstation[] = []
afterEach(() => {
  delete process.env.QUIRE_FOLD_CASE
  for (const ws of workstations.splice(0)) removeWorkstation(ws)
})

function workstation(seeded: SeededSpace): Workstation {
  const ws = new Workstation(t, seeded, tempDir('quire-case-'))
  workstations.push(ws)
  return ws
}

async function merge(spaceId: string, changes: unknown[]) {
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Setup' } })).body as ChangeRequest
  const put = await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  expect(put.status).toBeLessThan(300)
  expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')
}

/** A space holding the pair and a page linking each by its Git Sync path, as an import through the API leaves it. */
async function spaceWithPair(): Promise<SeededSpace> {
  const seeded = await seedSpace(t)
  await merge(seeded.spaceId, [
    {
      operation: 'insert_files',
      files: [
        { ref: 'upper', name: 'Image.png', base64: UPPER.toString('base64') },
        { ref: 'lower', name: 'image.png', base64: LOWER.toString('base64') },
      ],
    },
    { operation: 'insert_page', slug: 'pics', document: { markdown: PICS } },
  ])
  return seeded
}

/**
 * The bytes each asset link of a page opens, looking names up as a disk that folds case would when
 * `fold` (the one file whose name matches case-insensitively; two such files would be one there).
 */
function linkedBytes(folder: string, page: string, fold: boolean): Map<string, string> {
  const opened = new Map<string, string>()
  for (const link of extractLinks(fs.readFileSync(path.join(folder, page), 'utf8'))) {
    const target = resolveRelativePath(page, decodeURI(link.target.split('#')[0]))
    if (!target?.startsWith('.gitbook/assets/')) continue
    const dir = path.join(folder, '.gitbook/assets')
    const name = path.posix.basename(target)
    const matches = fs.readdirSync(dir).filter((n) => (fold ? n.toLowerCase() === name.toLowerCase() : n === name))
    expect(matches, `${link.target} names one file`).toHaveLength(1)
    opened.set(link.target, fs.readFileSync(path.join(dir, matches[0])).toString('latin1'))
  }
  return opened
}

describe('asset names differing only by case', () => {
  it('service: both names kept as Git Sync keeps them, each link resolving to its own file', async () => {
    const seeded = await spaceWithPair()
    const revision = await mainRevision(t.api, seeded.spaceId)
    const byName = new Map(revision.files.map((f) => [f.name, f.git?.path]))
    expect(byName.get('Image.png')).toBe('.gitbook/assets/Image.png')
    expect(byName.get('image.png')).toBe('.gitbook/assets/image.png')
  })

  it.skipIf(foldsCase(os.tmpdir()))('case-sensitive disk: the folder is the Git Sync tree byte for byte, every link opening its own bytes', async () => {
    const seeded = await spaceWithPair()
    const ws = workstation(seeded)
    expect(foldsCase(ws.dir)).toBe(false)
    expect((await ws.pull()).issues).toEqual([])
    expect(fs.readdirSync(ws.file('.gitbook/assets')).sort()).toEqual(['Image.png', 'image.png', 'logo.png'])
    expect(ws.read('pics.md')).toBe(PICS)
    expect(fs.readFileSync(ws.file('.gitbook/assets/Image.png'))).toEqual(UPPER)
    expect(fs.readFileSync(ws.file('.gitbook/assets/image.png'))).toEqual(LOWER)
    expect(linkedBytes(ws.folder, 'pics.md', false)).toEqual(
      new Map([
        ['.gitbook/assets/Image.png', UPPER.toString('latin1')],
        ['.gitbook/assets/image.png', LOWER.toString('latin1')],
        ['.gitbook/assets/image.png#x', LOWER.toString('latin1')],
      ]),
    )
  })

  it('disk that folds case: one file takes a local name and the links follow it; an edit pushes the service names back', async () => {
    process.env.QUIRE_FOLD_CASE = '1'
    const seeded = await spaceWithPair()
    const ws = workstation(seeded)
    expect((await ws.pull()).issues).toEqual([])
    const assets = fs.readdirSync(ws.file('.gitbook/assets'))
    // No two names one file on such a disk.
    expect(new Set(assets.map((n) => n.toLowerCase())).size).toBe(assets.length)
    expect(assets.sort()).toEqual(['Image.png', 'image (2).png', 'logo.png'])
    expect(fs.readFileSync(ws.file('.gitbook/assets/image (2).png'))).toEqual(LOWER)
    const opened = linkedBytes(ws.folder, 'pics.md', true)
    expect([...opened.values()]).toEqual([UPPER.toString('latin1'), LOWER.toString('latin1'), LOWER.toString('latin1')])
    expect(ws.read('pics.md')).toBe(PICS.replace(/\.gitbook\/assets\/image\.png/g, '.gitbook/assets/image (2).png').replace('(.gitbook/assets/image (2).png#x)', '(<.gitbook/assets/image (2).png#x>)'))

    // Unedited, the page is no local edit: the push sends nothing.
    await ws.push()
    expect(await openChangeRequests(t.api, seeded.spaceId)).toEqual([])

    // Edited: the change request gets the edit with the service's own names in its links.
    ws.write('pics.md', `${ws.read('pics.md')}\nA new line.\n`)
    await ws.push()
    const [cr] = await openChangeRequests(t.api, seeded.spaceId)
    expect(cr).toBeDefined()
    expect(await ws.merge(cr.id)).toBe('merge')
    const merged = await mainRevision(t.api, seeded.spaceId)
    const pics = (await t.api.call('getPageByPath', { params: { spaceId: seeded.spaceId, pagePath: 'pics' }, query: { format: 'markdown' } })).body as { markdown: string }
    expect(pics.markdown).toBe(`${PICS}\nA new line.\n`)
    expect(merged.files.map((f) => f.git?.path).sort()).toEqual(['.gitbook/assets/Image.png', '.gitbook/assets/image.png', '.gitbook/assets/logo.png'])
  })

  it('disk that folds case: when the local names change (a file of the clash gone), pages are written again with the new names', async () => {
    process.env.QUIRE_FOLD_CASE = '1'
    const seeded = await spaceWithPair()
    const SHOUT = Buffer.concat([PNG, Buffer.from('the shouting file')])
    await merge(seeded.spaceId, [
      { operation: 'insert_files', files: [{ ref: 'shout', name: 'IMAGE.png', base64: SHOUT.toString('base64') }] },
      { operation: 'insert_page', slug: 'shout', document: { markdown: '# Shout\n\n![](.gitbook/assets/IMAGE.png)\n\n![](.gitbook/assets/image.png)\n' } },
    ])
    // The service drops Image.png (as a hosted one may): image.png then has its own name locally, IMAGE.png another.
    let hidden: string | undefined = undefined
    const ws = new Workstation(t, seeded, tempDir('quire-case-'), {
      gateway: {
        fetch: async (input, init) => {
          const response = await fetch(input, init)
          const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
          if (hidden === undefined || !/^\/v1\/spaces\/[^/]+\/content$/.test(url.pathname) || !response.ok) return response
          const revision = (await response.json()) as Revision
          return Response.json({ ...revision, files: revision.files.filter((f) => f.name !== hidden) })
        },
      },
    })
    workstations.push(ws)
    await ws.pull()
    expect(fs.readdirSync(ws.file('.gitbook/assets')).sort()).toEqual(['IMAGE (3).png', 'Image.png', 'image (2).png', 'logo.png'])
    expect([...linkedBytes(ws.folder, 'shout.md', true).values()]).toEqual([SHOUT.toString('latin1'), LOWER.toString('latin1')])

    hidden = 'Image.png'
    await merge(seeded.spaceId, [{ operation: 'insert_page', slug: 'later', document: { markdown: '# Later\n' } }])
    expect((await ws.pull()).issues).toEqual([])
    expect(fs.readdirSync(ws.file('.gitbook/assets')).sort()).toEqual(['IMAGE (2).png', 'image.png', 'logo.png'])
    expect([...linkedBytes(ws.folder, 'shout.md', true).values()]).toEqual([SHOUT.toString('latin1'), LOWER.toString('latin1')])
    expect(ws.read('shout.md')).toBe('# Shout\n\n![](<.gitbook/assets/IMAGE (2).png>)\n\n![](.gitbook/assets/image.png)\n')
  })

  it.skipIf(foldsCase(os.tmpdir()))('a writer adding Logo.png beside logo.png: pushed, merged and mirrored with both names and links as written', async () => {
    const seeded = await seedSpace(t)
    const ws = workstation(seeded)
    await ws.pull()
    ws.write('.gitbook/assets/Logo.png', UPPER)
    const page = '# Logos\n\n![big](.gitbook/assets/Logo.png)\n\n![small](.gitbook/assets/logo.png)\n'
    ws.write('logos.md', page)
    await ws.push()
    const [cr] = await openChangeRequests(t.api, seeded.spaceId)
    expect(await ws.merge(cr.id)).toBe('merge')
    const fresh = workstation(seeded)
    expect((await fresh.pull()).issues).toEqual([])
    expect(fresh.read('logos.md')).toBe(page)
    expect(fs.readFileSync(fresh.file('.gitbook/assets/Logo.png'))).toEqual(UPPER)
    expect(fs.readFileSync(fresh.file('.gitbook/assets/logo.png'))).toEqual(PNG)
  })
})

describe('planner: a page written with local links', () => {
  const links = { page: 'pics.md', files: new Map([['.gitbook/assets/image.png', '.gitbook/assets/image (2).png']]) }
  const remote = (withLinks: boolean) => ({ revision: 'r2', entries: [{ id: 'p', kind: 'page' as const, path: 'pics.md', oid: 'remote-oid', ...(withLinks ? { links } : {}) }] })
  const journal = [{ id: 'p', kind: 'page' as const, path: 'pics.md', oid: 'remote-oid', baseHash: 'local-hash' }]

  it('is current while it holds what was written for the same remote oid', () => {
    expect(planSpaceSync(remote(true), journal, new Map([['pics.md', 'local-hash']])).actions).toEqual([])
  })

  it('is written again when its links no longer need local names, or the remote changed', () => {
    expect(planSpaceSync(remote(false), journal, new Map([['pics.md', 'local-hash']])).actions.map((a) => a.type)).toEqual(['download'])
    const changed = { ...remote(true), entries: [{ ...remote(true).entries[0], oid: 'newer' }] }
    expect(planSpaceSync(changed, journal, new Map([['pics.md', 'local-hash']])).actions).toMatchObject([{ type: 'download', links }])
  })
})
