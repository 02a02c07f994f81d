import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { executePlan, type JournalWriter } from '../../src/main/engine/sync/executor'
import type { JournalEntry, RemoteEntry, SyncAction } from '../../src/main/engine/sync/plan-types'
import { planSpaceSync } from '../../src/main/engine/sync/planner'
import { SpaceFolder } from '../../src/main/engine/workspace/space-folder'

/**
 * Sync down journals the files it writes in batches when they hold exactly their remote oid's bytes
 * (executor.ts, JournalBatch): one transaction for many files. A pass that stops before a batch is
 * recorded leaves files the journal does not know; the next pass must take each for what it is, the
 * remote version (adopted: nothing fetched, nothing blocked, nothing that looks like a local edit).
 */

let root: string
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-journal-batches-'))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

/** Batches of 10 that never wait too long (the pass's own limit is 64 or 250 ms): counts that do not depend on the machine's speed. */
const journalBatch = { size: 10, ms: Number.POSITIVE_INFINITY }
const unusedSource = { page: () => Promise.reject(new Error('unused')), file: () => Promise.reject(new Error('unused')) }

/** `count` pages under `guide/`, each with its own text, as the remote snapshot has them. */
function remotePages(count: number): RemoteEntry[] {
  return Array.from({ length: count }, (_, i) => {
    const text = `# Page ${i}\n\nFrom the service.\n`
    return { id: `p${i}`, kind: 'page' as const, path: `guide/p${i}.md`, oid: gitBlobOid(text), content: text }
  })
}

/** A journal that keeps its entries and counts its transactions; `failAt`: the transaction that fails. */
function countingJournal(failAt?: number): JournalWriter & { entries: JournalEntry[]; transactions: number } {
  const entries: JournalEntry[] = []
  const journal = {
    entries,
    transactions: 0,
    record: (entry: JournalEntry) => void entries.push(entry),
    forget: () => {},
    commit(work: () => void) {
      journal.transactions++
      if (journal.transactions === failAt) throw new Error('SQLITE_IOERR: disk I/O error')
      work()
    },
  }
  return journal
}

describe('journal records of a pass', () => {
  it('files written as the service sent them share transactions; a page written with local links is recorded at once', async () => {
    const entries = remotePages(100)
    const renamed = { page: 'guide/linked.md', files: new Map([['.gitbook/assets/Image.png', '.gitbook/assets/image (2).png']]) }
    const linkedText = '# Linked\n\n![](../.gitbook/assets/Image.png)\n'
    const actions: SyncAction[] = [
      ...entries.map((e): SyncAction => ({ type: 'download', id: e.id, kind: 'page', path: e.path, oid: e.oid, content: e.content })),
      { type: 'download', id: 'linked', kind: 'page', path: 'guide/linked.md', oid: gitBlobOid(linkedText), content: linkedText, links: renamed },
    ]
    const journal = countingJournal()
    const result = await executePlan({ revision: 'r', actions, notices: [] }, { files: new SpaceFolder(root), source: unusedSource, journal, journalBatch, concurrency: 1 })

    expect(result.done).toBe(101)
    expect(journal.entries.map((e) => e.id).sort()).toEqual([...actions.map((a) => (a.type === 'download' ? a.id : ''))].sort())
    // Ten batches of 10, then the linked page (nothing waiting before it): 11 transactions, not 101.
    expect(journal.transactions).toBe(11)
    const linked = journal.entries.find((e) => e.id === 'linked')!
    expect(linked.baseHash).not.toBe(linked.oid)
    expect(linked.baseHash).toBe(gitBlobOid(fs.readFileSync(path.join(root, 'guide/linked.md'))))
  })

  it('a batch the journal cannot record stops the pass; the next pass adopts its files, fetching and blocking nothing', async () => {
    const entries = remotePages(20)
    const actions = entries.map((e): SyncAction => ({ type: 'download', id: e.id, kind: 'page', path: e.path, oid: e.oid, content: e.content }))
    // The first batch (10 files) is recorded, the second fails: as if the process died before its commit.
    const journal = countingJournal(2)
    const folder = new SpaceFolder(root)
    const stopped = await executePlan({ revision: 'r', actions, notices: [] }, { files: folder, source: unusedSource, journal, journalBatch, concurrency: 1 }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(String(stopped)).toMatch(/the journal could not record the files written: SQLITE_IOERR/)
    expect(journal.entries).toHaveLength(10)
    const unjournaled = entries.filter((e) => !journal.entries.some((j) => j.id === e.id))
    expect(unjournaled).toHaveLength(10)
    // Written whole, at their remote paths, and unknown to the journal.
    for (const e of unjournaled) expect(gitBlobOid(fs.readFileSync(path.join(root, e.path)))).toBe(e.oid)

    const local = await folder.scan(entries.map((e) => e.path))
    const plan = planSpaceSync({ revision: 'r', entries }, journal.entries, local)
    expect(plan.notices).toEqual([])
    expect(plan.actions).toEqual(unjournaled.map((e) => ({ type: 'adopt', id: e.id, kind: 'page', path: e.path, oid: e.oid })))
  })
})
