import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { loginTo, quire, quireHomeForFile } from './support/cli-home'

/**
 * Issue 28, offline search from the CLI: `quire search` over the demo's spaces as mirrored, online
 * (the service's search beside it, results marked local or remote) and offline (the service stopped).
 */

const t = serviceForFile({ demo: true })
const home = quireHomeForFile('quire-cli-search-')
const workspace = path.join(home, 'docs')
const guide = path.join(workspace, 'Quire Demo', 'User Guide')

interface Json {
  query: string
  results: Array<{ source: 'local' | 'remote'; path?: string; file?: string; line?: number; title: string; snippetText: string; url?: string; alsoRemote?: true }>
  remote: { asked: boolean; found?: number; reason?: string; failed?: string }
}

const json = async (...args: string[]) => {
  const run = await quire('search', ...args, '--json')
  return { code: run.code, ...(JSON.parse(run.out) as Json) }
}

describe('quire search', () => {
  it('online: local results at file:line, the title first, the service searched beside them; a page deleted locally comes as remote', async () => {
    await loginTo(t)
    expect((await quire('sync', '--once', '--all', '--workspace', workspace)).code).toBe(0)

    const text = await quire('search', 'working offline')
    expect(text.code, text.err).toBe(0)
    // The page titled so first (line 1: its title), then the page that only links to it.
    expect(text.out.split('\n')[0]).toBe(`local   ${path.join(guide, 'guides', 'working-offline.md')}:1  [Working] [offline]`)
    expect(text.out).toMatch(/^local {3}.*troubleshooting\.md:7 {2}The conflict guide moved; see \[Working\] \[offline\]\.$/m)
    expect(text.out).toMatch(/^2 local results, 0 more from the service's search \(\d+ pages? found there\)$/m)

    const found = await json('working offline')
    expect(found.remote).toMatchObject({ asked: true })
    expect(found.results[0]).toMatchObject({ source: 'local', path: 'guides/working-offline.md', line: 1, alsoRemote: true, url: expect.stringMatching(/^http/) })

    // Gone from the folder (not sent: no watch runs), so gone from the index; the service still has it.
    fs.rmSync(path.join(guide, 'guides', 'working-offline.md'))
    const after = await json('working offline')
    expect(after.results.filter((r) => r.source === 'local').map((r) => r.path)).toEqual(['integrations/git-sync/troubleshooting.md'])
    expect(after.results).toContainEqual(expect.objectContaining({ source: 'remote', title: 'Working offline', url: expect.stringMatching(/^http.*\/page\//) }))
    expect((await quire('search', 'working offline')).out).toMatch(/^remote {2}User Guide: Working offline {2}.*http\S+$/m)
    expect((await quire('search', 'working offline', '--local')).out).toMatch(/^1 local result; the service was not asked \(--local\)$/m)
  })

  it('offline (the service stopped): finds an unsent edit, prefix and phrase queries, hostile queries never fail, exit codes', async () => {
    await t.close()
    const readme = path.join(guide, 'README.md')
    const lines = fs.readFileSync(readme, 'utf8').split('\n')
    fs.writeFileSync(readme, [...lines, '', 'Zanzibar quokkas appear here, unsent.', ''].join('\n'))
    const line = lines.length + 2

    const text = await quire('search', 'zanzibar')
    expect(text.code, text.err).toBe(0)
    expect(text.out).toBe(`local   ${readme}:${line}  [Zanzibar] quokkas appear here, unsent.\n1 local result; local results only: the service was not reached (the service cannot be reached)`)
    const status = JSON.parse((await quire('status', '--json')).out) as { spaces: Array<{ spaceId: string; title: string }> }
    const prefix = await json('zanz*', '--space', status.spaces.find((s) => s.title === 'User Guide')!.spaceId)
    expect(prefix.results.map((r) => `${r.path}:${r.line}`)).toEqual([`README.md:${line}`])
    expect(prefix.remote.asked).toBe(true)
    expect((await json('"quokkas appear"')).results).toHaveLength(1)
    const none = await json('"appear quokkas"')
    expect([none.code, none.results]).toEqual([1, []])
    expect((await quire('search', 'appear quokkas')).code).toBe(0)

    for (const hostile of ['foo"', '-bar', 'AND', 'NOT zanzibar', 'quokkas OR', 'NEAR(a', 'title:x', '--zanzibar']) {
      const run = await quire('search', '--', hostile)
      expect([run.code === 0 || run.code === 1, run.err], hostile).toEqual([true, ''])
    }
    expect((await quire('search', 'zanzibar"')).code).toBe(0)
    expect((await quire('search', '--', '--zanzibar')).code).toBe(0)
    expect(await quire('search', '-bar')).toMatchObject({ code: 2, err: expect.stringMatching(/words starting with "-" go after --/) })
    expect(await quire('search', '')).toMatchObject({ code: 2, err: 'quire search: the query is empty: give a word to search for' })
    expect(await quire('search', '"*"')).toMatchObject({ code: 2, err: expect.stringMatching(/no word to search for/) })
    expect(await quire('search', 'x', '--space', 'nope')).toMatchObject({ code: 2, err: expect.stringMatching(/no synced space has the id nope/) })
    expect((await quire('search', '--help')).out).toMatch(/^quire search "query" \[--space ID\] \[--json\]/)
  })
})
