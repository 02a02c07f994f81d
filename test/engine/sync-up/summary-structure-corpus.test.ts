import fs from 'node:fs'
import path from 'node:path'
import type { Revision, RevisionPage } from '@gitbook/api'
import { diffLines } from 'diff'
import { afterEach, describe, expect, it } from 'vitest'
import { parsePageMarkdown, parseSummary, type SummaryEntry } from '../../../src/main/content'
import { OrganizationsRepository } from '../../../src/main/service/store/organizations'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { corpusTree, GITSYNC_CORPUS } from '../../support/gitsync-corpus'
import { mainRevision, openChangeRequests, tempDir, Workstation } from './support/workspace'

/**
 * A real Git Sync tree (the corpus's smaller one, lista: 42 pages, 5 groups, separators) copied into the
 * folder of an empty synced space, pushed, merged, and mirrored into a fresh folder (issue 14,
 * structure). Compared with the original: the page tree (order, nesting, titles) and SUMMARY.md. Prints
 * `N/M pages in place` and every difference. Assets are made to the manifest's names and sizes.
 */
const t = serviceForFile()
const CORPUS = path.join(GITSYNC_CORPUS, 'lista')

const workstations: Workstation[] = []
afterEach(() => {
  for (const ws of workstations.splice(0)) removeWorkstation(ws)
})

/** Writes the tree into the space folder: its markdown as is, its assets made to the manifest's names and sizes. */
function copyTree(ws: Workstation) {
  for (const [rel, bytes] of corpusTree('lista')) ws.write(rel, bytes)
}

interface OutlineLine {
  depth: number
  title: string
  path?: string
}

/** SUMMARY.md's pages in order with their depth (groups are not pages: their pages at the top level), titled as the page will be. */
function expectedOutline(summary: string): OutlineLine[] {
  const out: OutlineLine[] = []
  const visit = (entries: SummaryEntry[], depth: number) => {
    for (const e of entries) {
      if (e.kind === 'group') visit(e.children, depth)
      else if (e.kind === 'page' && e.path && !e.path.includes('#')) {
        // (An entry with an anchor links a section of a page: not a page.)
        const text = fs.readFileSync(path.join(CORPUS, ...e.path.split('/')), 'utf8')
        out.push({ depth, title: parsePageMarkdown(text).title ?? e.title, path: e.path })
        visit(e.children, depth + 1)
      }
    }
  }
  visit(parseSummary(summary), 0)
  return out
}

function revisionOutline(revision: Revision): OutlineLine[] {
  const out: OutlineLine[] = []
  const visit = (pages: readonly RevisionPage[], depth: number) => {
    for (const p of pages) {
      out.push({ depth, title: p.title, path: 'git' in p && p.git ? p.git.path : undefined })
      if ('pages' in p && Array.isArray(p.pages)) visit(p.pages as RevisionPage[], depth + 1)
    }
  }
  visit(revision.pages, 0)
  return out
}

const line = (l: OutlineLine) => `${'  '.repeat(l.depth)}${l.title}`

describe('a Git Sync tree copied into the folder of an empty space', () => {
  it('comes back in SUMMARY.md order and nesting, titled, with no LICENSE page, groups reported', async () => {
    const orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
    const space = (await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'Docs' } })).body as { id: string }
    const seeded = { orgId, spaceId: space.id }
    const writer = new Workstation(t, seeded, tempDir('quire-gitsync-'))
    workstations.push(writer)
    await writer.pull()

    copyTree(writer)
    // Not a page of the tree (SUMMARY.md does not list it), as in real Git Sync repositories.
    writer.write('LICENSE.md', '# MIT License\n\nPermission is hereby granted, free of charge.\n')
    // One page with no H1: SUMMARY.md names it (seen in other real trees).
    const noH1 = 'tokens/price-stability.md'
    writer.write(noH1, writer.read(noH1).replace(/^# .*\n/m, ''))

    const pushed = await writer.push()
    expect(pushed.failures).toEqual([])
    const reports = pushed.reports.map((r) => `${r.kind}: ${r.message}`)
    console.log(`push reports:\n  ${reports.join('\n  ')}`)
    expect(reports).toContain('group-not-created: groups cannot be created through the content API; pages placed at the top level: "GET STARTED" (10 pages), "TOKENS" (3 pages), "protocol" (1 page), "for-developers" (4 pages), "Legal Disclaimer" (1 page)')
    expect(reports).toContain('not-in-summary: not in SUMMARY.md: not sent: LICENSE.md (SUMMARY.md lists the new pages; list it there to send it)')

    const [cr] = await openChangeRequests(t.api, space.id)
    expect(await writer.merge(cr.id)).toBe('merge')

    const mirror = new Workstation(t, seeded, tempDir('quire-gitsync-mirror-'))
    workstations.push(mirror)
    await mirror.pull()

    const summary = fs.readFileSync(path.join(CORPUS, 'SUMMARY.md'), 'utf8')
    const expected = expectedOutline(summary)
    expected.find((l) => l.path === noH1)!.title = 'Price stability' // SUMMARY.md's entry for it
    const actual = revisionOutline(await mainRevision(t.api, space.id))

    // In place: the same title at the same place of the outline (order and depth).
    const inPlace = expected.filter((e, i) => actual[i] && line(actual[i]) === line(e)).length
    const samePath = expected.filter((e) => fs.existsSync(mirror.file(e.path!)) && actual.some((a) => a.path === e.path)).length
    const outlineDiff = diffLines(`${expected.map(line).join('\n')}\n`, `${actual.map(line).join('\n')}\n`).filter((d) => d.added || d.removed)
    const mirroredSummary = mirror.read('SUMMARY.md')
    const summaryDiff = diffLines(summary, mirroredSummary).filter((d) => d.added || d.removed)
    console.log(
      [
        `${inPlace}/${expected.length} pages in place (order, nesting, title); ${samePath}/${expected.length} at the same path`,
        `page tree differences: ${outlineDiff.length === 0 ? 'none' : ''}`,
        ...outlineDiff.map((d) => `${d.added ? '+' : '-'} ${d.value.trimEnd().replace(/\n/g, `\n${d.added ? '+' : '-'} `)}`),
        `pages at another path: ${expected.filter((e) => !actual.some((a) => a.path === e.path)).map((e) => e.path).join(', ') || 'none'}`,
        `SUMMARY.md differences (${summaryDiff.reduce((n, d) => n + (d.count ?? 0), 0)} lines):`,
        ...summaryDiff.map((d) => `${d.added ? '+' : '-'} ${d.value.trimEnd().replace(/\n/g, `\n${d.added ? '+' : '-'} `)}`),
      ].join('\n'),
    )

    // Order, nesting and titles: every page where SUMMARY.md has it (groups flattened, reported above).
    expect(actual.map(line)).toEqual(expected.map(line))
    // The home page is the tree's README.md, not the last group's page.
    expect(actual[0].path).toBe('README.md')
    // LICENSE.md stayed local.
    expect(actual.some((a) => /license/i.test(a.title))).toBe(false)
    expect(fs.existsSync(mirror.file('LICENSE.md'))).toBe(false)
    expect(fs.existsSync(writer.file('LICENSE.md'))).toBe(true)
  }, 240_000)
})
