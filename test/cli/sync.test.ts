import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { describe, expect, it } from 'vitest'
import { createProgress } from '../../src/main/cli/progress'
import type { SyncProgressEvent } from '../../src/main/engine/sync/sync-engine'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { editSpaceDirectly } from '../support/content-fixtures'
import { quire, quireHomeForFile } from './support/cli-home'

const t = serviceForFile({ demo: true })
const home = quireHomeForFile('quire-cli-sync-')
const workspace = path.join(home, 'docs')

describe('quire sync / status / links', () => {
  it('refuses to sync before login, and without a selection', async () => {
    expect(await quire('sync', '--once')).toMatchObject({ code: 1, err: expect.stringMatching(/not signed in/) })
    expect((await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)).code).toBe(0)
    expect(await quire('sync', '--once', '--workspace', workspace)).toMatchObject({ code: 2, err: expect.stringMatching(/nothing selected/) })
  })

  it('sync --once --all mirrors every space, exits 0, and remembers the selection and workspace', async () => {
    const run = await quire('sync', '--once', '--all')
    expect(run.code).toBe(0)
    expect(run.out).toContain(`workspace: ${workspace}`)
    expect(run.out).toMatch(/^ok {6}Quire Demo\/User Guide {2}-> .*User Guide$/m)
    // Not a terminal: plain progress lines, no bar.
    expect(run.err).toMatch(/Quire Demo\/User Guide: \d+ steps to do/)
    expect(run.err).not.toContain('\r')
    expect(fs.readdirSync(path.join(workspace, 'Quire Demo')).sort()).toEqual(['API Reference', 'Engineering Handbook', 'User Guide'])

    const again = await quire('sync', '--once')
    expect(again.code).toBe(0)
    expect(again.out.match(/^ok /gm)).toHaveLength(3)
  })

  it('status reads the cache: state, revision, pages, last sync, pending work', async () => {
    const text = await quire('status')
    expect(text.code).toBe(0)
    expect(text.out).toMatch(/Quire Demo\/User Guide: in sync\n {2}revision \w+, 47 pages, last sync \d{4}-/)
    const json = JSON.parse((await quire('status', '--json')).out) as { spaces: Array<{ title: string; state: string; pages: number; revision: string; pending: { steps: number } }> }
    expect(json.spaces.map((s) => [s.title, s.state])).toEqual([
      ['API Reference', 'synced'],
      ['Engineering Handbook', 'synced'],
      ['User Guide', 'synced'],
    ])
    expect(json.spaces.find((s) => s.title === 'User Guide')).toMatchObject({ pages: 47, pending: { steps: 0 } })
  })

  it('links --broken maps each broken link to the local file and line that holds it', async () => {
    const json = JSON.parse((await quire('links', '--broken', '--json')).out) as {
      spaces: Array<{ space: string; folder: string; links: Array<{ status: string; target: string; localFile: string; line: number }> }>
    }
    const guide = json.spaces.find((s) => s.space === 'Quire Demo/User Guide')!
    expect(guide.links.map((l) => l.target).sort()).toEqual(['.gitbook/assets/missing-diagram.png', 'getting-started/legacy-setup.md', 'guides/conflicts.md'])
    for (const link of guide.links) {
      expect(link.status).toBe('broken')
      const line = fs.readFileSync(path.join(guide.folder, link.localFile), 'utf8').split('\n')[link.line - 1]
      expect(line, `${link.localFile}:${link.line}`).toContain(path.basename(link.target))
    }
    const text = await quire('links', '--broken')
    // Broken links listed: exit 1, for CI.
    expect(text.code).toBe(1)
    expect(text.out).toMatch(/Quire Demo\/User Guide: 3 broken links/)
    expect(text.out).toMatch(/^ {2}\S+\.md:\d+ {2}broken {2}guides\/conflicts\.md$/m)
  })

  it("links shows the report of the revision just synced: a pass reads none, the command reads it (issue 29)", async () => {
    const json = JSON.parse((await quire('links', '--json')).out) as { spaces: Array<{ space: string; spaceId: string; folder: string }> }
    const guide = json.spaces.find((s) => s.space === 'Quire Demo/User Guide')!
    const faq = (await t.api.call('getPageByPath', { params: { spaceId: guide.spaceId, pagePath: 'faq' }, query: { format: 'markdown' } })).body as { id: string; markdown: string }
    const edit = (markdown: string) => editSpaceDirectly(t.service, guide.spaceId, [{ operation: 'update_page', page: faq.id, document: { markdown } }])
    edit(`${faq.markdown.trimEnd()}\n\nSee [the old page](gone-for-good.md).\n`)
    expect((await quire('sync', '--once')).code).toBe(0)
    const fresh = await quire('links', '--broken')
    expect(fresh.out).toMatch(/Quire Demo\/User Guide: 4 broken links in the service's report\n/)
    expect(fresh.out).toMatch(/^ {2}faq\.md:\d+ {2}broken {2}gone-for-good\.md$/m)
    edit(faq.markdown)
    expect((await quire('sync', '--once')).code).toBe(0)
    expect((await quire('links', '--broken')).out).toMatch(/Quire Demo\/User Guide: 3 broken links in the service's report\n/)
  })

  it('without --once, passes repeat at the interval until SIGINT', async () => {
    const child = spawn(process.execPath, [path.resolve(__dirname, '../../bin/quire.mjs'), 'sync', '--interval', '1'], {
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let passes = 0
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('ok      Quire Demo/User Guide') && ++passes === 2) child.kill('SIGINT')
    })
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(passes).toBe(2)
    expect(code).toBe(0)
  }, 30_000)

  it('offline: a clear message and a non-zero exit; status still answers from the cache', async () => {
    await t.close()
    const run = await quire('sync', '--once')
    expect(run.code).toBe(1)
    expect(run.err).toMatch(/offline: the service cannot be reached; 3 spaces not synced \(the folders are untouched; the next pass resumes\)/)
    const status = JSON.parse((await quire('status', '--json')).out) as { spaces: Array<{ state: string }> }
    expect(status.spaces.map((s) => s.state)).toEqual(['offline', 'offline', 'offline'])
    expect((await quire('links', '--broken')).out).toMatch(/3 broken links/)
  }, 30_000)
})

describe('progress', () => {
  const events = (label: string, total: number): SyncProgressEvent[] => [
    { type: 'space-started', spaceId: 's', label },
    { type: 'space-planned', spaceId: 's', label, total },
    ...Array.from({ length: total }, (_, i): SyncProgressEvent => ({
      type: 'step',
      spaceId: 's',
      label,
      step: { action: { type: 'download', id: `p${i}`, kind: 'page', path: `p${i}.md`, oid: 'x' }, outcome: 'done', index: i + 1, total },
    })),
    { type: 'space-finished', spaceId: 's', label, state: 'synced' },
  ]

  it('draws one bar in place on a terminal', () => {
    let written = ''
    let clock = 0
    const render = createProgress({ isTTY: true, write: (s) => (written += s), line: () => {}, now: () => (clock += 100) })
    for (const e of events('Org/Space', 4)) render(e)
    expect(written).toContain('\r\x1b[2K[######------------------] 1/4 Org/Space  p0.md')
    expect(written).toContain('[########################] 4/4 Org/Space  p3.md')
    expect(written.endsWith('\r\x1b[2K')).toBe(true)
    expect(written).not.toContain('\n')
  })

  it('prints a few plain lines otherwise', () => {
    const lines: string[] = []
    const render = createProgress({ isTTY: false, write: () => {}, line: (l) => lines.push(l) })
    for (const e of events('Org/Space', 40)) render(e)
    expect(lines).toEqual(['Org/Space: checking', 'Org/Space: 40 steps to do', 'Org/Space: 10/40', 'Org/Space: 20/40', 'Org/Space: 30/40'])
  })

  it("counts each space's steps as its own when the spaces of a pass interleave", () => {
    const lines: string[] = []
    const render = createProgress({ isTTY: false, write: () => {}, line: (l) => lines.push(l) })
    const a = events('Org/A', 8).map((e) => ({ ...e, spaceId: 'a' }))
    const b = events('Org/B', 40).map((e) => ({ ...e, spaceId: 'b' }))
    for (let i = 0; i < Math.max(a.length, b.length); i++) for (const e of [a[i], b[i]]) if (e) render(e)
    expect(lines.filter((l) => l.startsWith('Org/A'))).toEqual(['Org/A: checking', 'Org/A: 8 steps to do', 'Org/A: 2/8', 'Org/A: 4/8', 'Org/A: 6/8'])
    expect(lines.filter((l) => l.startsWith('Org/B'))).toEqual(['Org/B: checking', 'Org/B: 40 steps to do', 'Org/B: 10/40', 'Org/B: 20/40', 'Org/B: 30/40'])
  })
})
