import { describe, expect, it } from 'vitest'
import { gitBlobOid, type ContentChange } from '../../../src/main/content'
import type { RemotePageRow } from '../../../src/main/engine/cache/cache-repository'
import { planPush } from '../../../src/main/engine/push/push-planner'
import type { LocalFile, PushInput, PushPlan } from '../../../src/main/engine/push/push-types'
import type { JournalEntry } from '../../../src/main/engine/sync/plan-types'

/**
 * The push planner on a Git Sync tree dropped into a synced space (issue 14, structure): SUMMARY.md as
 * the writer left it decides the new pages' nesting, order, groups and titles, and which new files are
 * pages. Pure: the plan's inserts are applied to a small tree model here.
 */

const QUIRE_SUMMARY = '# Table of contents\n\n* [Introduction](README.md)\n'
const file = (text: string): LocalFile => ({ hash: gitBlobOid(text), size: Buffer.byteLength(text), text })

/** A space with only its home page, synced down (the journal has it and Quire's SUMMARY.md). */
function emptySpace(local: Record<string, string>, extraMain: RemotePageRow[] = []): PushInput & { journal: JournalEntry[] } {
  const home = '# Introduction\n'
  const journal: JournalEntry[] = [
    { id: 'home', kind: 'page', path: 'README.md', oid: gitBlobOid(home), baseHash: gitBlobOid(home) },
    { id: 'quire:summary', kind: 'summary', path: 'SUMMARY.md', oid: gitBlobOid(QUIRE_SUMMARY), baseHash: gitBlobOid(QUIRE_SUMMARY) },
  ]
  const files = new Map<string, LocalFile>([['README.md', file(home)], ['SUMMARY.md', file(QUIRE_SUMMARY)]])
  for (const [path, text] of Object.entries(local)) files.set(path, file(text))
  return {
    spaceId: 's1',
    journal,
    main: { pages: [{ id: 'home', position: 0, kind: 'document', title: 'Introduction', slug: 'introduction', gitPath: 'README.md', gitOid: gitBlobOid(home) }, ...extraMain], files: [] },
    local: files,
    summary: files.get('SUMMARY.md')!.text,
    pushed: [],
    posted: new Set(),
    refused: new Set(),
    stamp: '2026-11-24 080000',
  }
}

interface Node {
  id: string
  path?: string
  title?: string
  children: Node[]
}

/** The tree after the plan's inserts (and moves), from main's top level: `  `-indented lines of paths (or ids). */
function outlineAfter(input: PushInput, plan: PushPlan): string[] {
  const root: Node = { id: '', children: [] }
  const byId = new Map<string, Node>([['', root]])
  const rows = [...input.main.pages].sort((a, b) => a.position - b.position)
  for (const row of rows) byId.set(row.id, { id: row.id, path: row.gitPath, title: row.title, children: [] })
  for (const row of rows) byId.get(row.parentId ?? '')!.children.push(byId.get(row.id)!)
  for (const { change, entries } of plan.changes) {
    if (change.operation !== 'insert_page') continue
    const siblings = byId.get(change.into ?? '')!.children
    if (change.at !== undefined) expect(change.at).toBeLessThanOrEqual(siblings.length)
    const node: Node = { id: change.ref!, path: entries[0]?.path, title: change.title, children: [] }
    siblings.splice(change.at ?? siblings.length, 0, node)
    byId.set(change.ref!, node)
  }
  const lines: string[] = []
  const visit = (nodes: Node[], depth: number) => {
    for (const n of nodes) {
      lines.push(`${'  '.repeat(depth)}${n.path ?? n.id}`)
      visit(n.children, depth + 1)
    }
  }
  visit(root.children, 0)
  return lines
}

const inserts = (plan: PushPlan) => plan.changes.map((c) => c.change).filter((c): c is Extract<ContentChange, { operation: 'insert_page' }> => c.operation === 'insert_page')

/** A Git Sync tree in the shape of the corpus's: groups, a separator, nesting, a page with no H1, LICENSE.md. */
const GITSYNC_SUMMARY = `# Table of contents

* [Overview](README.md)

## GET STARTED

* [Provide collateral](get-started/provide-collateral.md)
* [Collateral options](get-started/collateral-options/README.md)
  * [Classic options](get-started/collateral-options/classic.md)
  * [LST options](get-started/collateral-options/lst.md)
* [Borrow](get-started/borrow.md)

***

* [About the token](about-token.md)

## TOKENS

* [Tokenomics](tokens/tokenomics.md)

## Legal Disclaimer

* [Legal Disclaimer](legal-disclaimer/legal-disclaimer.md)
`

const GITSYNC_TREE: Record<string, string> = {
  'README.md': '# Overview\n\nWelcome.\n',
  'SUMMARY.md': GITSYNC_SUMMARY,
  'get-started/provide-collateral.md': '# Provide collateral\n\nText.\n',
  'get-started/collateral-options/README.md': '# Collateral options\n\nText.\n',
  'get-started/collateral-options/classic.md': 'No heading here: SUMMARY.md names this page.\n',
  'get-started/collateral-options/lst.md': '# LST options\n\nText.\n',
  'get-started/borrow.md': '# Borrow\n\nText.\n',
  'about-token.md': '# About the token\n\nText.\n',
  'tokens/tokenomics.md': '# Tokenomics\n\nText.\n',
  'legal-disclaimer/legal-disclaimer.md': '# Legal Disclaimer\n\nText.\n',
  'LICENSE.md': '# MIT License\n\nPermission is hereby granted.\n',
}

describe('a Git Sync tree dropped into an empty synced space', () => {
  const input = emptySpace(GITSYNC_TREE)
  const plan = planPush(input)

  it('keeps SUMMARY.md order and nesting: the home page stays first, groups flattened in order', () => {
    expect(outlineAfter(input, plan)).toEqual([
      'README.md',
      'get-started/provide-collateral.md',
      'get-started/collateral-options/README.md',
      '  get-started/collateral-options/classic.md',
      '  get-started/collateral-options/lst.md',
      'get-started/borrow.md',
      'about-token.md',
      'tokens/tokenomics.md',
      'legal-disclaimer/legal-disclaimer.md',
    ])
  })

  it('reports once that groups cannot be created, naming each group and how many of its pages went to the top level (the separator ended GET STARTED)', () => {
    const reports = plan.reports.filter((r) => r.kind === 'group-not-created')
    expect(reports).toHaveLength(1)
    expect(reports[0].message).toBe('groups cannot be created through the content API; pages placed at the top level: "GET STARTED" (3 pages), "TOKENS" (1 page), "Legal Disclaimer" (1 page)')
    expect(plan.reports.filter((r) => r.kind === 'placed-higher')).toEqual([])
  })

  it('gives a page with no H1 its SUMMARY.md title, and no title to pages that have one', () => {
    const byTitle = inserts(plan).map((c) => c.title).filter(Boolean)
    expect(byTitle).toEqual(['Classic options'])
    expect(plan.changes.find((c) => c.change.operation === 'insert_page' && c.change.title)?.title).toBe('Classic options')
  })

  it('does not send LICENSE.md, which SUMMARY.md does not list, and says so once', () => {
    expect(plan.changes.flatMap((c) => c.entries.map((e) => e.path))).not.toContain('LICENSE.md')
    const reports = plan.reports.filter((r) => r.kind === 'not-in-summary')
    expect(reports.map((r) => r.message)).toEqual(['not in SUMMARY.md: not sent: LICENSE.md (SUMMARY.md lists the new pages; list it there to send it)'])
  })

  it('plans the same whatever order the scan gives the files', () => {
    const reversed = emptySpace(Object.fromEntries(Object.entries(GITSYNC_TREE).reverse()))
    expect(outlineAfter(reversed, planPush(reversed))).toEqual(outlineAfter(input, plan))
  })
})

describe('new files in everyday use', () => {
  it('a new file is a page when the writer did not touch SUMMARY.md', () => {
    const input = emptySpace({ 'notes.md': '# Notes\n', 'guide/LICENSE.md': '# License\n' })
    const plan = planPush(input)
    expect(inserts(plan)).toHaveLength(2)
    expect(plan.reports.filter((r) => r.kind === 'not-in-summary')).toEqual([])
  })

  it('a new file is a page when SUMMARY.md was edited but lists no new page', () => {
    const input = emptySpace({ 'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n', 'notes.md': '# Notes\n' })
    expect(inserts(planPush(input))).toHaveLength(1)
  })

  it('a new file is a page when the SUMMARY.md edit lists new files only where the last synced SUMMARY.md did', () => {
    // Seed 26185: a page deleted in the space whose file the writer edited (a cache rebuilt since knows no
    // page of it) is listed as before; the writer's edit of SUMMARY.md (a title here, a swap there) listed
    // no new page, yet every new file it does not list was held (P1).
    const base = '# Table of contents\n\n* [Introduction](README.md)\n* [Gone](gone.md)\n'
    const input = { ...emptySpace({ 'SUMMARY.md': base.replace('[Introduction]', '[Welcome]'), 'gone.md': '# Gone\n\nEdited.\n', 'notes.md': '# Notes\n' }), summaryBase: base }
    const plan = planPush(input)
    expect(inserts(plan).map((c) => c.slug).sort()).toEqual(['gone', 'notes'])
    expect(plan.reports.filter((r) => r.kind === 'not-in-summary')).toEqual([])
  })

  it('a file SUMMARY.md lists a page after keeps that place; one it does not list is held while it lists a new page', () => {
    const summary = '# Table of contents\n\n* [Introduction](README.md)\n* [A](a.md)\n* [B](b.md)\n'
    const input = emptySpace({ 'SUMMARY.md': summary, 'b.md': '# B\n', 'a.md': '# A\n', 'scratch.md': '# Scratch\n' })
    const plan = planPush(input)
    expect(outlineAfter(input, plan)).toEqual(['README.md', 'a.md', 'b.md'])
  })

  it('a page listed before README.md never becomes the home page', () => {
    const summary = '# Table of contents\n\n* [First](first.md)\n* [Introduction](README.md)\n'
    const input = emptySpace({ 'SUMMARY.md': summary, 'first.md': '# First\n' })
    expect(outlineAfter(input, planPush(input))).toEqual(['README.md', 'first.md'])
  })

  it('a new page goes right after the last existing sibling SUMMARY.md lists before it, whatever unlisted pages lie between', () => {
    const extra: RemotePageRow[] = [
      { id: 'old', position: 1, kind: 'document', title: 'Old', slug: 'old', gitPath: 'old.md', gitOid: 'x' },
      { id: 'mid', position: 2, kind: 'document', title: 'Mid', slug: 'mid', gitPath: 'mid.md', gitOid: 'y' },
    ]
    const summary = '# Table of contents\n\n* [Introduction](README.md)\n* [Mid](mid.md)\n* [New](new.md)\n'
    const input = emptySpace({ 'old.md': 'old', 'mid.md': 'mid', 'new.md': '# New\n', 'SUMMARY.md': summary }, extra)
    input.journal.push({ id: 'old', kind: 'page', path: 'old.md', oid: 'x', baseHash: gitBlobOid('old') }, { id: 'mid', kind: 'page', path: 'mid.md', oid: 'y', baseHash: gitBlobOid('mid') })
    expect(outlineAfter(input, planPush(input))).toEqual(['README.md', 'old.md', 'mid.md', 'new.md'])
  })
})

describe('pages of several groups placed at the top level', () => {
  it('get distinct slugs when their files have the same name in different folders', () => {
    const summary = '# Table of contents\n\n* [Introduction](README.md)\n\n## A\n\n* [Guides](a/guides.md)\n\n## B\n\n* [Guides](b/guides.md)\n'
    const input = emptySpace({ 'SUMMARY.md': summary, 'a/guides.md': '# Guides\n\nA.\n', 'b/guides.md': '# Guides\n\nB.\n' })
    const slugs = inserts(planPush(input)).map((c) => c.slug)
    expect(slugs).toEqual(['guides', 'guides-2'])
  })
})

describe('groups the space already has', () => {
  it('a ## group main has by that title (Git Sync anchor aside) receives its pages, in order, with no report', () => {
    const group: RemotePageRow = { id: 'g1', position: 1, kind: 'group', title: 'Reference', slug: 'reference' }
    const summary = '# Table of contents\n\n* [Introduction](README.md)\n\n## Reference <a href="#ref" id="ref"></a>\n\n* [API](reference/api.md)\n* [CLI](reference/cli.md)\n'
    const input = emptySpace({ 'SUMMARY.md': summary, 'reference/cli.md': '# CLI\n', 'reference/api.md': '# API\n' }, [group])
    const plan = planPush(input)
    expect(outlineAfter(input, plan)).toEqual(['README.md', 'g1', '  reference/api.md', '  reference/cli.md'])
    expect(plan.reports).toEqual([])
  })
})
