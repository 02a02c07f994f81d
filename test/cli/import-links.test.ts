import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { newlyBrokenLinks } from '../support/link-check'
import { importFixture, quire } from './support/import-tree'

/**
 * Issue 24: a plain-folder import through the content API, whose `## Group`s cannot be created, so
 * their pages come back at the top level. Links between pages (markdown, with an anchor, folder style,
 * HTML `<a href>`, `{% content-ref %}`) point where the pages came back, in the mirror's files and in the
 * service's link report; links to a page that moved with its target are kept as written.
 */
const fixture = importFixture('quire-import-links-')

const TREE: Record<string, string> = {
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Home](README.md)',
    '',
    '## Guides',
    '',
    '* [Setup](guides/setup.md)',
    '* [Deploy](guides/deploy/README.md)',
    '  * [Docker](guides/deploy/docker.md)',
    '',
    '## Reference',
    '',
    '* [API](reference/api.md)',
    '',
  ].join('\n'),
  'README.md': '# Home\n\nStart with [setup](guides/setup.md), then [deploy](guides/deploy/) and [docker](guides/deploy/docker.md#run).\n',
  'guides/setup.md': '# Setup\n\nBack [home](../README.md). See the [API](../reference/api.md#auth).\n\n<a href="deploy/docker.md">Docker</a>\n',
  'guides/deploy/README.md': '# Deploy\n\n{% content-ref url="docker.md" %}\n[docker.md](docker.md)\n{% endcontent-ref %}\n\nFirst [setup](../setup.md).\n',
  'guides/deploy/docker.md': '# Docker\n\n## Run\n\nUp to [deploy](./) or [the API](../../reference/api.md).\n',
  'reference/api.md': '# API\n\n## Auth\n\nSee [setup](../guides/setup.md).\n',
}

describe('quire import keeps links between pages working', () => {
  it('groups flattened: markdown, anchor, folder, HTML and content-ref links point where the pages came back; the link report has none broken', async () => {
    const tree = path.join(fixture.base, 'tree')
    for (const [rel, text] of Object.entries(TREE)) {
      fs.mkdirSync(path.dirname(path.join(tree, rel)), { recursive: true })
      fs.writeFileSync(path.join(tree, rel), text)
    }
    const writer = await fixture.signedInHome('writer')
    const run = await quire('import', tree, '--org', fixture.orgId, '--title', 'Links', '--workspace', path.join(writer, 'ws'), '--json')
    expect(run.code, run.err).toBe(0)
    const result = JSON.parse(run.out.slice(run.out.indexOf('\n{') + 1)) as { space: { id: string }; changeRequest: { id: string }; notes: Array<{ kind: string; path: string; reason: string }> }
    const moved = new Map(result.notes.filter((n) => n.kind === 'moved').map((n) => [n.path, /^comes back as (\S+)/.exec(n.reason)![1]]))
    expect(moved).toEqual(new Map([['guides/setup.md', 'setup.md'], ['guides/deploy/README.md', 'deploy/README.md'], ['guides/deploy/docker.md', 'deploy/docker.md'], ['reference/api.md', 'api.md']]))
    expect((await fixture.t.api.call('mergeChangeRequest', { params: { spaceId: result.space.id, changeRequestId: result.changeRequest.id } })).status).toBe(200)

    const reader = await fixture.signedInHome('reader')
    const sync = await quire('sync', '--once', '--space', result.space.id, '--workspace', path.join(reader, 'ws'))
    expect(sync.code, sync.err).toBe(0)
    const mirror = path.join(reader, 'ws', 'Acme', 'Links')
    const pages = Object.keys(TREE).filter((rel) => rel !== 'SUMMARY.md')
    expect(newlyBrokenLinks(tree, mirror, pages, (page) => moved.get(page) ?? page)).toEqual([])
    // Rewritten from where each page is now; kept as written where the target moved along.
    expect(fs.readFileSync(path.join(mirror, 'README.md'), 'utf8')).toBe('# Home\n\nStart with [setup](setup.md), then [deploy](deploy/) and [docker](deploy/docker.md#run).\n')
    expect(fs.readFileSync(path.join(mirror, 'setup.md'), 'utf8')).toBe('# Setup\n\nBack [home](README.md). See the [API](api.md#auth).\n\n<a href="deploy/docker.md">Docker</a>\n')
    expect(fs.readFileSync(path.join(mirror, 'deploy/README.md'), 'utf8')).toBe(TREE['guides/deploy/README.md'])
    expect(fs.readFileSync(path.join(mirror, 'deploy/docker.md'), 'utf8')).toBe('# Docker\n\n## Run\n\nUp to [deploy](./) or [the API](../api.md).\n')

    // The service's own link report of the merged space: nothing broken.
    const links = await quire('links', '--broken', '--json')
    expect(links.code, links.err).toBe(0)
    const report = JSON.parse(links.out) as { spaces: Array<{ spaceId: string; revision?: string; links: unknown[] }> }
    const space = report.spaces.find((s) => s.spaceId === result.space.id)
    expect(space?.revision).toBeDefined()
    expect(space?.links).toEqual([])
  }, 120_000)
})
