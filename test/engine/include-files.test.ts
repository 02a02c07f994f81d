import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { main } from '../../src/main/cli/main'
import { placeRemoteTree } from '../../src/main/engine/sync/remote-snapshot'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { until } from '../support/until'
import { removeWorkstation, serviceForFile } from './sync-up/support/hooks'
import { openChangeRequests, tempDir, Workstation } from './sync-up/support/workspace'

/**
 * Issue 14: `.gitbook/includes/` mirrored. A Git Sync tree with two includes (one included by a page)
 * goes in through the service's Git import and comes out through sync down: each include written from
 * its reusable content's JSON document under its `title:` front matter, journaled so an unchanged one
 * is never fetched again and a local edit is never overwritten nor sent (the content API cannot write
 * reusable content).
 */
const t = serviceForFile()
const made: string[] = []
let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})
afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
})

const GIT_ENV = { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' }

function repositoryOf(files: Record<string, string>): string {
  const dir = tempDir('quire-includes-repo-')
  made.push(dir)
  execFileSync('git', ['init', '--quiet', '--initial-branch=main'], { cwd: dir, env: GIT_ENV })
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true })
    fs.writeFileSync(path.join(dir, rel), text)
  }
  execFileSync('git', ['add', '--all'], { cwd: dir, env: GIT_ENV })
  execFileSync('git', ['commit', '--quiet', '-m', 'docs'], { cwd: dir, env: GIT_ENV })
  return dir
}

/** Imports `files` into the space through the service's Git import and waits for it to end. */
async function gitImport(spaceId: string, files: Record<string, string>): Promise<void> {
  const url = pathToFileURL(repositoryOf(files)).href
  expect((await t.api.call('importGitRepository', { params: { spaceId }, body: { url, ref: 'refs/heads/main' } })).status).toBe(204)
  let state: any
  await until(async () => {
    state = (await t.api.call('getSpaceGitInfo', { params: { spaceId } })).body
    return state.operation.state === 'running' ? undefined : true
  }, 'the Git import to end', 60_000)
  expect(state.operation.state).toBe('success')
  expect(state.operation.notes ?? []).toEqual([])
}

// Git Sync's include files: `title:` front matter, a blank line, the content.
const NEED_HELP = '---\ntitle: Need help?\n---\n\n{% hint style="info" %}\nAsk in the [forum](https://forum.example.com) or read the [guide](../../guide.md).\n{% endhint %}\n'
const STYLED = '---\ntitle: Styled\n---\n\nSome __strong__ words and\n\n* a star bullet\n'
const TREE: Record<string, string> = {
  'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
  'README.md': '# Home\n\n{% include ".gitbook/includes/need-help.md" %}\n',
  'guide.md': '# Guide\n\nSteps.\n',
  '.gitbook/includes/need-help.md': NEED_HELP,
  '.gitbook/includes/styled.md': STYLED,
}

async function newSpace(title: string) {
  const orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
  const spaceId = ((await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title } })).body as { id: string }).id
  return { orgId, spaceId }
}

/** A fetch that counts the reusable content documents the client asks for. */
function counting(): { fetch: typeof fetch; documents: string[] } {
  const documents: string[] = []
  return {
    documents,
    fetch: (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
      if (/\/reusable-contents\/[^/]+\/document/.test(url)) documents.push(url)
      return fetch(input, init)
    },
  }
}

describe('where an include is written', () => {
  it('at its Git Sync path, kept inside .gitbook/includes/ whatever the service says, apart from files of the same name', () => {
    const content = (id: string, path: string) => ({ id, title: id, git: { oid: `oid-${id}`, path } })
    const revision = {
      id: 'r1',
      pages: [],
      files: [{ id: 'f1', name: 'a.md', contentType: 'text/markdown', downloadURL: 'http://x/f1', size: 1, git: { oid: 'oid-f1', path: '.gitbook/includes/a.md' } }],
      reusableContents: [content('ok', '.gitbook/includes/need-help.md'), content('up', '.gitbook/includes/../../.ssh/config'), content('clash', '.gitbook/includes/a.md'), content('dot', '.gitbook/includes/.hidden.md')],
    } as unknown as Parameters<typeof placeRemoteTree>[0]
    const placed = placeRemoteTree(revision).entries.filter((e) => e.include)
    expect(placed.map((e) => [e.id, e.path])).toEqual([
      ['quire:include:ok', '.gitbook/includes/need-help.md'],
      ['quire:include:up', '.gitbook/includes/config.md'],
      ['quire:include:clash', expect.stringMatching(/^\.gitbook\/includes\/a.*\.md$/)],
      ['quire:include:dot', expect.stringMatching(/^\.gitbook\/includes\/[^.][^/]*\.md$/)],
    ])
    expect(placed[2].path).not.toBe('.gitbook/includes/a.md')
    expect(placed.map((e) => e.oid)).toEqual(['oid-ok', 'oid-up', 'oid-clash', 'oid-dot'])
  })
})

describe('.gitbook/includes/ through Git import and quire sync', () => {
  let home: string
  beforeAll(() => {
    home = tempDir('quire-includes-home-')
    made.push(home)
  })

  it('comes back into a fresh folder with every page; each include from its document under its title', async () => {
    const { spaceId } = await newSpace('Includes')
    await gitImport(spaceId, TREE)
    const env = { QUIRE_HOME: process.env.QUIRE_HOME, QUIRE_TOKEN_STORE: process.env.QUIRE_TOKEN_STORE }
    process.env.QUIRE_HOME = home
    process.env.QUIRE_TOKEN_STORE = 'file'
    const workspace = tempDir('quire-includes-mirror-')
    made.push(workspace)
    try {
      const quire = async (...args: string[]) => {
        const err: string[] = []
        const code = await main(args, { out: () => undefined, err: (l) => err.push(l), isTTY: false })
        return { code, err: err.join('\n') }
      }
      expect((await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)).code).toBe(0)
      const run = await quire('sync', '--once', '--space', spaceId, '--workspace', workspace)
      expect(run.code, run.err).toBe(0)
    } finally {
      for (const [key, value] of Object.entries(env)) {
        if (value === undefined) delete process.env[key]
        else process.env[key] = value
      }
    }
    const folder = path.join(workspace, 'Acme', 'Includes')
    const differ: string[] = []
    for (const [rel, text] of Object.entries(TREE)) {
      const file = path.join(folder, ...rel.split('/'))
      const back = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined
      if (back !== text) differ.push(`${rel}${back === undefined ? ' (missing)' : `: ${JSON.stringify(back)}`}`)
    }
    const total = Object.keys(TREE).length
    console.log(`includes round trip: ${total - differ.length}/${total} files identical${differ.length > 0 ? `; differ: ${differ.join('; ')}` : ''}`)
    // Pages, SUMMARY.md and the include whose document converts back as written are byte for byte.
    expect(differ.filter((d) => !d.startsWith('.gitbook/includes/styled.md:'))).toEqual([])
    // The other reads the same, in the converter's own spelling (`**` for `__`), under the same front matter.
    const styled = fs.readFileSync(path.join(folder, '.gitbook/includes/styled.md'), 'utf8')
    expect(styled).toBe(STYLED.replace('__strong__', '**strong**'))
  }, 120_000)

  it('is fetched only when its oid changes, adopted where the folder already holds it, and a local edit stays local and is reported', async () => {
    const seeded = await newSpace('Journal')
    await gitImport(seeded.spaceId, TREE)
    const net = counting()
    ws = new Workstation(t, seeded, tempDir('quire-includes-ws-'), { gateway: { fetch: net.fetch } })
    expect((await ws.pull()).issues).toEqual([])
    expect(net.documents).toHaveLength(2)
    expect(ws.read('.gitbook/includes/need-help.md')).toBe(NEED_HELP)
    const styled = ws.read('.gitbook/includes/styled.md')
    expect(gitBlobOid(styled)).not.toBe(gitBlobOid(STYLED)) // written otherwise than Git Sync wrote it

    // A new revision with the includes unchanged: neither is fetched nor written again.
    await gitImport(seeded.spaceId, { ...TREE, 'guide.md': '# Guide\n\nMore steps.\n' })
    net.documents.length = 0
    expect((await ws.pull()).issues).toEqual([])
    expect(ws.read('guide.md')).toBe('# Guide\n\nMore steps.\n')
    expect(net.documents).toEqual([])
    expect(ws.read('.gitbook/includes/styled.md')).toBe(styled)

    // Nothing to send, each said once per push: the content API has no operation that writes reusable content.
    expect((await ws.push()).reports).toEqual([])
    ws.write('.gitbook/includes/styled.md', `${styled}\nMy own line.\n`)
    ws.write('.gitbook/includes/mine.md', '---\ntitle: Mine\n---\n\nNew.\n')
    const pushed = await ws.push()
    expect(await openChangeRequests(t.api, seeded.spaceId)).toEqual([])
    expect(pushed.reports.map((r) => [r.kind, r.path])).toEqual([
      ['include-kept', '.gitbook/includes/mine.md'],
      ['include-kept', '.gitbook/includes/styled.md'],
    ])
    expect(pushed.reports[1].message).toContain('changed locally: the content API cannot write reusable content, so it stays in this folder and is not sent')

    // The service changes both: the unedited one follows, the edited one is kept and reported.
    await gitImport(seeded.spaceId, { ...TREE, '.gitbook/includes/need-help.md': NEED_HELP.replace('Ask', 'Ask us'), '.gitbook/includes/styled.md': STYLED.replace('words', 'more words') })
    const pulled = await ws.pull()
    expect(ws.read('.gitbook/includes/need-help.md')).toBe(NEED_HELP.replace('Ask', 'Ask us'))
    expect(ws.read('.gitbook/includes/styled.md')).toBe(`${styled}\nMy own line.\n`)
    expect(JSON.stringify(pulled.issues)).toContain('.gitbook/includes/styled.md')

    // A folder that already holds the files as Git Sync wrote them: adopted, nothing fetched.
    const other = counting()
    const second = new Workstation(t, seeded, tempDir('quire-includes-ws2-'), { gateway: { fetch: other.fetch } })
    try {
      second.write('.gitbook/includes/need-help.md', NEED_HELP.replace('Ask', 'Ask us'))
      second.write('.gitbook/includes/styled.md', STYLED.replace('words', 'more words'))
      expect((await second.pull()).issues).toEqual([])
      expect(other.documents).toEqual([])
      expect(second.read('.gitbook/includes/styled.md')).toBe(STYLED.replace('words', 'more words'))
    } finally {
      removeWorkstation(second)
    }
  }, 120_000)
})
