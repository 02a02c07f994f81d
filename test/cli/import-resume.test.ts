import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { until } from '../support/until'
import { openChangeRequests, PNG } from '../engine/sync-up/support/workspace'
import { importFixture, makeTree, quire } from './support/import-tree'

/**
 * `quire import` killed and run again (it goes on: one space, one change request, every page once),
 * refusing bad input with a clear message and exit code, refusing a folder with unsent edits, and
 * made trees with what the corpus lacks (CRLF, H1 escapes and a trailing space, no H1, case-only
 * asset clashes): identical after a merge and a mirror, or named by the report.
 */
const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const fixture = importFixture('quire-import-resume-')
const signedInHome = (name: string) => fixture.signedInHome(name)

/**
 * `quire import` in a child process, SIGKILLed as soon as `killWhen` says so (it is asked at every line
 * printed and every 50 ms); answers whether the kill landed before the child ended on its own.
 */
function importKilled(home: string, args: string[], killWhen: (line: string | undefined) => boolean): Promise<{ killed: boolean; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'import', ...args], {
      env: { ...process.env, QUIRE_HOME: home, QUIRE_TOKEN_STORE: 'file', QUIRE_CLI_TSX: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output: string[] = []
    const check = (line?: string) => {
      if (child.exitCode === null && child.signalCode === null && killWhen(line)) child.kill('SIGKILL')
    }
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        output.push(line)
        check(line)
      })
    }
    const poll = setInterval(() => check(), 50)
    child.once('exit', (_code, signal) => {
      clearInterval(poll)
      resolve({ killed: signal === 'SIGKILL', output: output.join('\n') })
    })
  })
}

/** Content operations of the child's outbox sent and not yet sent (read from its cache file, as it writes it). */
function outboxProgress(home: string): { done: number; waiting: number } {
  const file = path.join(home, 'cache.db')
  if (!fs.existsSync(file)) return { done: 0, waiting: 0 }
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    db.pragma('busy_timeout = 1000')
    const rows = db.prepare("SELECT state, COUNT(*) AS n FROM outbox WHERE kind = 'content' GROUP BY state").all() as Array<{ state: string; n: number }>
    const count = (pick: (state: string) => boolean) => rows.filter((r) => pick(r.state)).reduce((n, r) => n + r.n, 0)
    return { done: count((s) => s === 'done'), waiting: count((s) => s !== 'done' && s !== 'failed') }
  } catch {
    return { done: 0, waiting: 0 } // the schema is being made, or the file is busy: ask again
  } finally {
    db.close()
  }
}

interface RevisionPage {
  title: string
  pages?: RevisionPage[]
}

function titlesOf(pages: RevisionPage[]): string[] {
  return pages.flatMap((p) => [p.title, ...titlesOf(p.pages ?? [])])
}

describe('quire import killed and run again', () => {
  it('goes on where it stopped: one space, one change request, every page once', async () => {
    const tree = path.join(fixture.base, 'tree-lista')
    makeTree('lista', tree)
    const home = await signedInHome('resume')
    const args = [tree, '--org', fixture.orgId, '--title', 'Resumed', '--workspace', path.join(home, 'ws')]

    // Killed while copying, then while sending (the outbox holds what was queued).
    const copying = await importKilled(home, args, (line) => line !== undefined && /^copying: \d+\/\d+/.test(line))
    let midSend = false
    const sending = await importKilled(home, args, (line) => {
      const { done, waiting } = outboxProgress(home)
      midSend ||= done > 0 && waiting > 0
      // Between two batches when the poll catches it; else once the push is over (the check was not reached yet).
      return midSend || (line !== undefined && /reading the change request back/.test(line))
    })
    console.log(`kills landed: while copying ${copying.killed}, while sending ${sending.killed} (between two batches: ${midSend})`)
    expect(copying.killed, copying.output).toBe(true)
    expect(sending.killed, sending.output).toBe(true)

    const run = await quire('import', ...args, '--json')
    expect(run.code, run.err).toBe(0)
    const result = JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as { space: { id: string }; changeRequest: { id: string }; verification: { identical: number; total: number } }

    const spaces = (await fixture.t.api.call('listSpacesInOrganizationById', { params: { organizationId: fixture.orgId } })).body as { items: Array<{ id: string; title: string }> }
    expect(spaces.items.filter((s) => s.title === 'Resumed').map((s) => s.id)).toEqual([result.space.id])
    expect((await openChangeRequests(fixture.t.api, result.space.id)).map((c) => c.id)).toEqual([result.changeRequest.id])
    const revision = (await fixture.t.api.call('getRevisionOfChangeRequestById', { params: { spaceId: result.space.id, changeRequestId: result.changeRequest.id } })).body as { pages: RevisionPage[] }
    const titles = titlesOf(revision.pages)
    // The 42 pages of SUMMARY.md, each once (an insert sent twice would add a page).
    expect(titles).toHaveLength(42)
    // The same count as an import that was never interrupted (test/cli/import.test.ts).
    expect(result.verification).toMatchObject({ identical: 5, total: 43 })

    // Run once more: nothing left to copy or send.
    const again = await quire('import', ...args)
    expect(again.code, again.err).toBe(0)
    expect(again.out).toMatch(/: 0 file\(s\) copied, \d+ already there/)
  }, 180_000)
})

describe('quire import refuses bad input', () => {
  it('says what is wrong and exits non-zero', async () => {
    const home = await signedInHome('bad')
    const ws = path.join(home, 'ws')
    const missing = await quire('import', path.join(fixture.base, 'nowhere'), '--org', fixture.orgId, '--title', 'X', '--workspace', ws)
    expect([missing.code, missing.err]).toEqual([2, expect.stringMatching(/nowhere: no such folder/)])

    const noSummary = path.join(fixture.base, 'no-summary')
    fs.mkdirSync(noSummary, { recursive: true })
    fs.writeFileSync(path.join(noSummary, 'README.md'), '# Home\n')
    const summaryless = await quire('import', noSummary, '--org', fixture.orgId, '--title', 'X', '--workspace', ws)
    expect([summaryless.code, summaryless.err]).toEqual([2, expect.stringMatching(/no SUMMARY\.md: a Git Sync tree lists its pages there/)])

    const badConfig = path.join(fixture.base, 'bad-config')
    fs.mkdirSync(badConfig, { recursive: true })
    fs.writeFileSync(path.join(badConfig, '.gitbook.yaml'), 'root: ../elsewhere\n')
    const escaping = await quire('import', badConfig, '--org', fixture.orgId, '--title', 'X', '--workspace', ws)
    expect([escaping.code, escaping.err]).toEqual([2, expect.stringMatching(/\.gitbook\.yaml: root "\.\.\/elsewhere" leaves the repository/)])

    const tree = path.join(fixture.base, 'small')
    fs.mkdirSync(tree, { recursive: true })
    fs.writeFileSync(path.join(tree, 'README.md'), '# Home\n')
    fs.writeFileSync(path.join(tree, 'SUMMARY.md'), '# Table of contents\n\n* [Home](README.md)\n')
    const noSpace = await quire('import', tree, '--space', 'no-such-space', '--workspace', ws)
    expect([noSpace.code, noSpace.err]).toEqual([2, expect.stringMatching(/no space no-such-space/)])
    const noOrg = await quire('import', tree, '--org', 'no-such-org', '--title', 'X', '--workspace', ws)
    expect([noOrg.code, noOrg.err]).toEqual([2, expect.stringMatching(/no organization no-such-org/)])
    const neither = await quire('import', tree, '--workspace', ws)
    expect([neither.code, neither.err]).toEqual([2, expect.stringMatching(/choose the space: --space ID, or --org ID with --title TITLE/)])

    // Signed out: a home with no account.
    process.env.QUIRE_HOME = path.join(fixture.base, 'signed-out')
    fs.mkdirSync(process.env.QUIRE_HOME, { recursive: true })
    const signedOut = await quire('import', tree, '--org', fixture.orgId, '--title', 'X', '--workspace', ws)
    expect([signedOut.code, signedOut.err]).toEqual([1, expect.stringMatching(/not signed in; run quire login/)])
  }, 60_000)

  it('refuses a space folder holding an edit not sent yet, and leaves the edit as it is', async () => {
    const home = await signedInHome('edited')
    const ws = path.join(home, 'ws')
    const space = (await fixture.t.api.call('createSpace', { params: { organizationId: fixture.orgId }, body: { title: 'Edited' } })).body as { id: string }
    const sync = await quire('sync', '--once', '--space', space.id, '--workspace', ws)
    expect(sync.code, sync.err).toBe(0)
    const folder = path.join(ws, 'Acme', 'Edited')
    fs.writeFileSync(path.join(folder, 'notes.md'), '# My notes\n\nNot sent yet.\n')

    const tree = path.join(fixture.base, 'tree-for-edited')
    fs.mkdirSync(tree, { recursive: true })
    fs.writeFileSync(path.join(tree, 'README.md'), '# Home\n')
    fs.writeFileSync(path.join(tree, 'notes.md'), '# Theirs\n')
    fs.writeFileSync(path.join(tree, 'SUMMARY.md'), '# Table of contents\n\n* [Home](README.md)\n* [Theirs](notes.md)\n')
    const refused = await quire('import', tree, '--space', space.id, '--workspace', ws)
    expect(refused.code).toBe(1)
    expect(refused.err).toMatch(/holds work not sent to the service yet/)
    expect(refused.err).toMatch(/notes\.md \(new\)/)
    expect(fs.readFileSync(path.join(folder, 'notes.md'), 'utf8')).toBe('# My notes\n\nNot sent yet.\n')
    expect(await openChangeRequests(fixture.t.api, space.id)).toEqual([])
  }, 60_000)
})

describe('quire import of what the corpus lacks', () => {
  it('CRLF, H1 escapes and a trailing space, no H1, case-only asset clashes: identical after merge and mirror, or reported', async () => {
    const tree = path.join(fixture.base, 'made')
    const write = (rel: string, content: string | Buffer) => {
      fs.mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true })
      fs.writeFileSync(path.join(tree, rel), content)
    }
    write('.gitbook.yaml', 'root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc.md\n')
    write('docs/intro.md', '# Welcome\n\nStart here.\n')
    write('docs/crlf.md', '# Windows file\r\n\r\nWritten with CRLF.\r\n')
    write('docs/escaped.md', '# LOAD\\_NAME and $\\_GET \n\nEscapes and a trailing space in the H1.\n')
    write('docs/untitled.md', 'A page with no H1; SUMMARY.md names it.\n\n![](.gitbook/assets/Logo.png)\n![](.gitbook/assets/logo.png)\n')
    write('docs/.gitbook/assets/Logo.png', Buffer.concat([PNG, Buffer.from('upper')]))
    write('docs/.gitbook/assets/logo.png', Buffer.concat([PNG, Buffer.from('lower')]))
    write('docs/toc.md', '# Table of contents\n\n* [Welcome](intro.md)\n* [Windows file](crlf.md)\n* [LOAD\\_NAME](escaped.md)\n* [Named by SUMMARY](untitled.md)\n')

    const writer = await signedInHome('made-writer')
    const run = await quire('import', tree, '--org', fixture.orgId, '--title', 'Made', '--workspace', path.join(writer, 'ws'), '--json')
    expect(run.code, run.err).toBe(0)
    const result = JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as { space: { id: string }; changeRequest: { id: string }; notes: Array<{ kind: string; path: string; reason: string }> }
    expect((await fixture.t.api.call('mergeChangeRequest', { params: { spaceId: result.space.id, changeRequestId: result.changeRequest.id } })).status).toBe(200)

    const reader = await signedInHome('made-reader')
    expect((await quire('sync', '--once', '--space', result.space.id, '--workspace', path.join(reader, 'ws'))).code).toBe(0)
    const mirror = path.join(reader, 'ws', 'Acme', 'Made')
    // The tree's files at the names the space folder uses (.gitbook.yaml's readme and summary).
    const names: Array<[string, string]> = [
      ['intro.md', 'README.md'],
      ['crlf.md', 'crlf.md'],
      ['escaped.md', 'escaped.md'],
      ['untitled.md', 'untitled.md'],
    ]
    const noted = new Set(result.notes.map((n) => n.path))
    let identical = 0
    for (const [from, to] of names) {
      const mirrored = await until(() => (fs.existsSync(path.join(mirror, to)) ? fs.readFileSync(path.join(mirror, to)) : undefined), `${to} mirrored`)
      if (mirrored.equals(fs.readFileSync(path.join(tree, 'docs', from)))) identical++
      else expect(noted, `${from} differs and the report does not say so`).toContain(from)
    }
    console.log(`made tree: ${identical}/${names.length} pages identical; report:\n${result.notes.map((n) => `  ${n.kind}: ${n.path}: ${n.reason}`).join('\n')}`)
    // The page with no H1 is titled by its SUMMARY.md entry.
    const revision = (await fixture.t.api.call('getCurrentRevision', { params: { spaceId: result.space.id } })).body as { pages: RevisionPage[] }
    expect(titlesOf(revision.pages)).toContain('Named by SUMMARY')
  }, 90_000)
})
