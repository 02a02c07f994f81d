import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import type { RemotePageRow } from '../../../src/main/engine/cache/cache-repository'
import { planPush } from '../../../src/main/engine/push/push-planner'
import type { LocalFile, PushInput, PushPlan } from '../../../src/main/engine/push/push-types'
import type { JournalEntry } from '../../../src/main/engine/sync/plan-types'

/**
 * The push planner on SUMMARY.md edits in a space with groups (issue 24, 4): pure, the plan's moves applied
 * to a small tree model. Groups are items of the top level: moving a page between groups, reordering
 * groups and a separator that ends a group are moves; a separator that ends nothing is reported.
 */
const file = (text: string): LocalFile => ({ hash: gitBlobOid(text), size: Buffer.byteLength(text), text })

const BASE = `# Table of contents

* [Home](README.md)

## Start

* [Install](start/install.md)
* [Run](start/run.md)

## Reference

* [API](reference/api.md)

***

* [FAQ](faq.md)
`

const ROWS: RemotePageRow[] = [
  { id: 'home', position: 0, kind: 'document', title: 'Home', gitPath: 'README.md', gitOid: 'h' },
  { id: 'g-start', position: 1, kind: 'group', title: 'Start', slug: 'start' },
  { id: 'install', parentId: 'g-start', position: 0, kind: 'document', title: 'Install', gitPath: 'start/install.md', gitOid: 'i' },
  { id: 'run', parentId: 'g-start', position: 1, kind: 'document', title: 'Run', gitPath: 'start/run.md', gitOid: 'r' },
  { id: 'g-ref', position: 2, kind: 'group', title: 'Reference', slug: 'reference' },
  { id: 'api', parentId: 'g-ref', position: 0, kind: 'document', title: 'API', gitPath: 'reference/api.md', gitOid: 'a' },
  { id: 'faq', position: 3, kind: 'document', title: 'FAQ', gitPath: 'faq.md', gitOid: 'f' },
]

function input(summary: string): PushInput {
  const pages = ROWS.filter((r) => r.gitPath)
  const journal: JournalEntry[] = pages.map((r) => ({ id: r.id, kind: 'page', path: r.gitPath!, oid: r.gitOid!, baseHash: gitBlobOid(r.id) }))
  journal.push({ id: 'quire:summary', kind: 'summary', path: 'SUMMARY.md', oid: gitBlobOid(BASE), baseHash: gitBlobOid(BASE) })
  const local = new Map<string, LocalFile>(pages.map((r) => [r.gitPath!, { hash: gitBlobOid(r.id), size: 1 }]))
  local.set('SUMMARY.md', file(summary))
  return { spaceId: 's', journal, main: { pages: ROWS, files: [] }, local, summary, summaryBase: BASE, pushed: [], posted: new Set(), refused: new Set(), stamp: '2026-01-01 000000' }
}

/** Main's tree after the plan's moves: `  `-indented ids. */
function after(plan: PushPlan): string[] {
  const children = new Map<string, string[]>()
  for (const r of [...ROWS].sort((a, b) => a.position - b.position)) children.set(r.parentId ?? '', [...(children.get(r.parentId ?? '') ?? []), r.id])
  const parent = new Map(ROWS.map((r) => [r.id, r.parentId ?? '']))
  for (const { change } of plan.changes) {
    if (change.operation !== 'update_page') continue
    const from = children.get(parent.get(change.page)!)!
    from.splice(from.indexOf(change.page), 1)
    const to = change.into === undefined ? parent.get(change.page)! : (change.into ?? '')
    const list = children.get(to) ?? []
    expect(change.at ?? list.length).toBeLessThanOrEqual(list.length)
    list.splice(change.at ?? list.length, 0, change.page)
    children.set(to, list)
    parent.set(change.page, to)
  }
  const out: string[] = []
  const visit = (id: string, depth: number) => {
    for (const c of children.get(id) ?? []) {
      out.push(`${'  '.repeat(depth)}${c}`)
      visit(c, depth + 1)
    }
  }
  visit('', 0)
  return out
}

describe('SUMMARY.md edits in a space with groups', () => {
  it('a page moved from one group to another moves into that group', () => {
    const plan = planPush(input(BASE.replace('* [Run](start/run.md)\n', '').replace('* [API](reference/api.md)\n', '* [API](reference/api.md)\n* [Run](start/run.md)\n')))
    expect(after(plan)).toEqual(['home', 'g-start', '  install', 'g-ref', '  api', '  run', 'faq'])
    expect(plan.summaryEdit).toMatchObject({ unsent: 0 })
  })

  it('two groups swapped: the groups move', () => {
    const swapped = BASE.replace('## Start\n\n* [Install](start/install.md)\n* [Run](start/run.md)\n\n## Reference\n\n* [API](reference/api.md)\n', '## Reference\n\n* [API](reference/api.md)\n\n## Start\n\n* [Install](start/install.md)\n* [Run](start/run.md)\n')
    expect(after(planPush(input(swapped)))).toEqual(['home', 'g-ref', '  api', 'g-start', '  install', '  run', 'faq'])
  })

  it('a separator that ends a group takes the pages after it to the top level, one taken out brings them in; one that ends nothing is reported', () => {
    const plan = planPush(input(BASE.replace('* [Run](start/run.md)\n', '\n***\n\n* [Run](start/run.md)\n').replace('***\n\n* [FAQ]', '* [FAQ]').replace('* [Home](README.md)\n', '* [Home](README.md)\n\n***\n')))
    expect(after(plan)).toEqual(['home', 'g-start', '  install', 'run', 'g-ref', '  api', '  faq'])
    expect(plan.reports.map((r) => [r.kind, r.line])).toEqual([['summary-not-sent', 5]])
  })

  it('a URL entry and an entry naming no file are reported with their lines; the home page listed after another stays first, reported', () => {
    const plan = planPush(input(BASE.replace('* [Home](README.md)\n', '* [FAQ](faq.md)\n* [Home](README.md)\n* [Status](https://status.example.com)\n* [Typo](fqa.md)\n').replace('***\n\n* [FAQ](faq.md)\n', '')))
    expect(plan.reports.map((r) => [r.kind, r.line])).toEqual(expect.arrayContaining([['summary-not-sent', 4], ['summary-not-sent', 5], ['summary-not-sent', 6]]))
    expect(after(plan)[0]).toBe('home')
    expect(plan.summaryEdit?.unsent).toBe(3)
  })
})
