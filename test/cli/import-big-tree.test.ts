import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { changeRequestRevision, pagesOf } from '../engine/sync-up/support/workspace'
import { commitTree } from '../support/gitsync-corpus'
import { importFixture, quire } from './support/import-tree'

/**
 * `quire import` of a repository too big for the service's Git import (issue 26, "big trees"). The
 * service's limit is lowered (gitTreeLimits: 4 KiB) so a small repository stands for a 2.5 GB one: the
 * service refuses it at once with its size and the limit, and the tree goes through the content API
 * instead, the refusal in the report as the service said it. Before, the import stopped on the refusal
 * and left the space it had created empty.
 */
const fixture = importFixture('quire-import-big-', { gitTreeLimits: { maxBytes: 4096 } })

const tree = () =>
  new Map(
    Object.entries({
      'SUMMARY.md': '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n',
      'README.md': '# Home\n\nWelcome.\n',
      'guide.md': '# Guide\n\n![Diagram](.gitbook/assets/diagram.png)\n',
    })
      .map(([rel, text]) => [rel, Buffer.from(text)] as [string, Buffer])
      .concat([['.gitbook/assets/diagram.png', Buffer.alloc(6000, 1)]]),
  )

async function spacesTitled(title: string): Promise<string[]> {
  const listed = (await fixture.t.api.call('listSpacesInOrganizationById', { params: { organizationId: fixture.orgId } })).body as { items: Array<{ id: string; title: string }> }
  return listed.items.filter((s) => s.title === title).map((s) => s.id)
}

describe('quire import of a tree over the service Git import limit', () => {
  it('the refusal (size and limit) comes at once and the tree goes through the content API into a change request; no second, empty space', async () => {
    const repo = commitTree(path.join(fixture.base, 'big-repo'), tree())
    const home = await fixture.signedInHome('writer')
    const run = await quire('import', repo, '--org', fixture.orgId, '--title', 'Big', '--workspace', path.join(home, 'ws'), '--json')
    expect(run.code, run.all).toBe(0)
    const refusal = /^the service refused the Git import \(HTTP 400\): the tree holds \d+ bytes \(.*\) in 4 files, over the 4096-byte \(4\.0 KiB\) limit of this service's Git import/
    // Said as it happens, then in the report.
    expect(run.out).toMatch(/the service refused the Git import \(HTTP 400\): .* limit of this service's Git import: importing through the content API instead/)
    const result = JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as { space: { id: string }; strategy: string; complete: boolean; changeRequest?: { id: string }; notes: Array<{ reason: string }> }
    expect(result.strategy).toBe('content API')
    expect(result.complete).toBe(true)
    expect(result.notes[0].reason).toMatch(refusal)
    expect(result.notes[0].reason).toMatch(/; the tree went through the content API instead$/)
    const revision = await changeRequestRevision(fixture.t.api, result.space.id, result.changeRequest!.id)
    expect([...pagesOf(revision).values()].map((p) => p.path).sort()).toEqual(['README.md', 'guide.md'])
    expect(await spacesTitled('Big')).toEqual([result.space.id])
  }, 120_000)

  it('an import that fails before anything reached the space it created deletes that space and says why', async () => {
    const repo = commitTree(path.join(fixture.base, 'blocked-repo'), tree())
    const home = await fixture.signedInHome('blocked')
    // A file where the organization's folder goes: the new space cannot be mirrored, so nothing is copied or sent.
    fs.mkdirSync(path.join(home, 'ws'), { recursive: true })
    fs.writeFileSync(path.join(home, 'ws', 'Acme'), 'not a folder\n')
    const run = await quire('import', repo, '--org', fixture.orgId, '--title', 'Blocked', '--workspace', path.join(home, 'ws'))
    expect(run.code, run.all).toBe(1)
    expect(run.err).toMatch(/the space could not be mirrored first \(.+\); nothing was copied/)
    expect(run.err).toMatch(/the space Blocked \(\w+\) it created was deleted: nothing had reached it/)
    expect(await spacesTitled('Blocked')).toEqual([])
    expect(fs.readFileSync(path.join(home, 'ws', 'Acme'), 'utf8')).toBe('not a folder\n')

    // Run again once the way is clear: a new space, imported (the deleted one is not looked for).
    fs.rmSync(path.join(home, 'ws', 'Acme'))
    const again = await quire('import', repo, '--org', fixture.orgId, '--title', 'Blocked', '--workspace', path.join(home, 'ws'))
    expect(again.code, again.all).toBe(0)
    expect(await spacesTitled('Blocked')).toHaveLength(1)
  }, 120_000)
})
