import fs from 'node:fs'
import type { ChangeRequest, Revision, RevisionPage } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { contentKind } from '../../src/main/engine/workspace/content-names'
import { removeWorkstation, serviceForFile } from './sync-up/support/hooks'
import { PNG, seedSpace, tempDir, Workstation } from './sync-up/support/workspace'

/**
 * Issue 10 finding 3 and issue 9's naming cases, through the real local service and real folders: what
 * a space folder may receive from the server is an allow-list (pages `.md`, SUMMARY.md, README.md,
 * `.gitbook/assets/**`, `.gitbook/includes/**`), and names such as `...`, `..foo`, `.` and `..` are ordinary names.
 */

const t = serviceForFile()

let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})

/** Every file under `dir`, relative, `/`-separated. */
function filesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(`${dir}/${e.name}`, `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
}

/** A fetch that rewrites the current revision the way a hostile service (or proxy) would. */
function rewriting(edit: (revision: Revision) => void): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    const response = await fetch(input, init)
    if (!/^\/v1\/spaces\/[^/]+\/content$/.test(url.pathname) || !response.ok) return response
    const revision = (await response.json()) as Revision
    edit(revision)
    return new Response(JSON.stringify(revision), { status: response.status, headers: { 'Content-Type': 'application/json' } })
  }
}

function walk(pages: readonly RevisionPage[], visit: (page: RevisionPage) => void) {
  for (const page of pages) {
    visit(page)
    if ('pages' in page && Array.isArray(page.pages)) walk(page.pages, visit)
  }
}

async function merge(spaceId: string, changes: unknown[]) {
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Setup' } })).body as ChangeRequest
  const put = await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  expect(put.status).toBeLessThan(300)
  expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')
}

describe('what a space folder may receive from the server', () => {
  it('server paths outside the allow-list are re-placed as visible content, never written as given: no .git, no dotfile', async () => {
    const seeded = await seedSpace(t)
    const hostile: Record<string, string> = { faq: '.git/hooks/pre-commit', 'getting-started': '.bashrc', install: '.gitbook/includes/../../.ssh/config.md' }
    ws = new Workstation(t, seeded, tempDir(), {
      gateway: {
        fetch: rewriting((revision) => {
          walk(revision.pages, (page) => {
            const slug = 'slug' in page ? page.slug : ''
            if ('git' in page && page.git && hostile[slug]) page.git.path = hostile[slug]
          })
          for (const file of revision.files) if (file.git) file.git.path = '.git/config'
        }),
      },
    })
    const pulled = await ws.pull()
    expect(pulled.issues).toEqual([])
    const files = filesUnder(ws.folder)
    expect(files.filter((f) => f.split('/').some((s) => s.startsWith('.') && s !== '.gitbook'))).toEqual([])
    expect(files.filter((f) => f.startsWith('.gitbook/')).every((f) => f.startsWith('.gitbook/assets/'))).toBe(true)
    for (const f of files) if (f !== 'SUMMARY.md' && !f.startsWith('.gitbook/')) expect(contentKind(f), f).toBe('page')
    expect(files).toEqual(expect.arrayContaining(['_.git/hooks/pre-commit.md', '_.bashrc.md', '.gitbook/assets/config']))
    expect(ws.read('_.git/hooks/pre-commit.md')).toBe('# FAQ\n\nQuestions.\n')
    expect(fs.readFileSync(ws.file('.gitbook/assets/config'))).toEqual(PNG)
  })
})

describe('names that look like path steps are ordinary names', () => {
  it('a page with slug `...` or `..foo` syncs, and the rest of its space with it', async () => {
    const seeded = await seedSpace(t)
    await merge(seeded.spaceId, [
      { operation: 'insert_page', document: { markdown: '# Dots\n\nThree of them.\n' }, slug: '...' },
      { operation: 'insert_page', document: { markdown: '# Dot dot foo\n\nA name.\n' }, slug: '..foo', ref: 'dd' },
      { operation: 'insert_page', document: { markdown: '# Under\n\nA subpage.\n' }, slug: '...bar', into: 'dd' },
    ])
    ws = new Workstation(t, seeded, tempDir())
    const pulled = await ws.pull()
    expect(pulled.issues).toEqual([])
    expect(pulled.state).toBe('synced')
    const pages = ws.cache.journal(seeded.spaceId).filter((j) => j.kind === 'page')
    const dots = pages.find((j) => ws!.read(j.path).startsWith('# Dots'))
    const under = pages.find((j) => ws!.read(j.path).startsWith('# Under'))
    expect(dots?.path).toBe('_....md')
    expect(under?.path).toBe('_..foo/_...bar.md')
    expect(ws.read('faq.md')).toBe('# FAQ\n\nQuestions.\n')
  })

  it('files named `.` and `..` download', async () => {
    const seeded = await seedSpace(t)
    const one = Buffer.from('one dot')
    const two = Buffer.from('two dots')
    await merge(seeded.spaceId, [
      {
        operation: 'insert_files',
        files: [
          { ref: 'a', name: '.', base64: one.toString('base64') },
          { ref: 'b', name: '..', base64: two.toString('base64') },
        ],
      },
    ])
    ws = new Workstation(t, seeded, tempDir())
    const pulled = await ws.pull()
    expect(pulled.issues).toEqual([])
    const assets = new Map(
      ws.cache
        .journal(seeded.spaceId)
        .filter((j) => j.kind === 'file')
        .map((j) => [fs.readFileSync(ws!.file(j.path)).toString(), j.path]),
    )
    expect([...assets.keys()].sort()).toEqual(['one dot', 'two dots', PNG.toString()].sort())
    for (const p of assets.values()) expect(p.startsWith('.gitbook/assets/')).toBe(true)
  })
})
