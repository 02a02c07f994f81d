import type { Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { Revision, RevisionPage } from '@gitbook/api'
import type { CacheRepository } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import { SUMMARY_ENTRY_ID } from '../cache/cache-repository'
import { GatewayContentSource } from './gateway-source'
import { placeRemoteTree, withSummary, type LayoutOptions } from './remote-snapshot'
import { contentKind, folderReason } from '../workspace/content-names'
import type { JournalEntry, LocalState, RemoteSnapshot } from './plan-types'
import type { RecoveryTexts } from './recovery-match'

/**
 * What a pass needs to recover without a journal (recovery-match.ts): whether it must (the journal is
 * not known to be whole), every content file of the folder (a page's file may be anywhere), and the
 * texts the similarity step compares.
 *
 * Whether the journal is whole: each full pass leaves the journal's size in the cache's settings; a
 * journal that holds fewer entries lost rows. A cache with no size and no synced revision is new (a
 * first sync, a cache deleted or set aside): its journal is empty however many files the folder holds.
 * Shrinking for a good reason (a push taking over a path) costs one pass of recovery, nothing more.
 */

const journalSizeSetting = (spaceId: string) => `journal_size:${spaceId}`

type JournalFacts = Pick<CacheRepository, 'setting' | 'setSetting' | 'journalSize' | 'space'>

export function journalIntact(cache: JournalFacts, spaceId: string): boolean {
  const recorded = cache.setting(journalSizeSetting(spaceId))
  // A cache from before the size was kept: whole if it has synced (nothing says otherwise).
  if (recorded === undefined) return cache.space(spaceId)?.syncedRevision !== undefined
  return cache.journalSize(spaceId) >= Number(recorded)
}

/** After a pass whose recovery (if any) completed: the journal as it is now is whole. */
export function rememberJournalSize(cache: JournalFacts, spaceId: string) {
  const size = String(cache.journalSize(spaceId))
  if (cache.setting(journalSizeSetting(spaceId)) !== size) cache.setSetting(journalSizeSetting(spaceId), size)
  if (cache.setting(earlierSetting(spaceId)) !== undefined && cache.setting(earlierSetting(spaceId)) !== '') cache.setSetting(earlierSetting(spaceId), '')
}

const earlierSetting = (spaceId: string) => `recovering_whole:${spaceId}`

/**
 * Whether recovery compares the files with the pages' earlier versions: for a cache that lost its whole
 * journal, until a pass completes its recovery. A first recovering pass that did not (a save during it
 * skipped a step: the hosted service's page reads leave time for one) has journaled some files; the
 * others are still the old copies and edits of them, and taken for edits of the current pages the next
 * pass undid what others merged while the cache was lost. Lost rows alone (a kill mid-pass): the files
 * the journal does not name are the pass's own writes, not old copies.
 */
export function recoveringWhole(cache: JournalFacts, spaceId: string, journalLength: number): boolean {
  if (journalLength > 0) return cache.setting(earlierSetting(spaceId)) === '1'
  cache.setSetting(earlierSetting(spaceId), '1')
  return true
}

/** Every content file under `root` (pages, assets, includes), relative and `/`-separated; symlinks and skipped folders not entered. */
export async function listContentFiles(root: string): Promise<string[]> {
  const out: string[] = []
  const visit = async (dir: string, relative: string): Promise<void> => {
    let entries: Dirent[]
    try {
      entries = await fs.readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) {
        if (folderReason(rel) === undefined) await visit(path.join(dir, entry.name), rel)
      } else if (entry.isFile() && contentKind(rel) !== undefined) out.push(rel)
    }
  }
  await visit(root, '')
  return out
}

/**
 * The texts of the similarity step: the local page files the journal does not name and that are not
 * already their entry's content at its place, read now (few: most files of a recovered folder match by
 * path or oid); the remote pages' markdown as the tree carried it.
 */
export async function recoveryTexts(root: string, snapshot: RemoteSnapshot, journal: readonly JournalEntry[], local: LocalState, pageTexts: ReadonlyMap<string, Uint8Array>): Promise<RecoveryTexts> {
  const named = new Set(journal.map((j) => j.path))
  const oids = new Set(snapshot.entries.map((e) => e.oid))
  const localTexts = new Map<string, string>()
  for (const [rel, hash] of local) {
    if (named.has(rel) || oids.has(hash) || contentKind(rel) !== 'page') continue
    try {
      localTexts.set(rel, await fs.readFile(path.join(root, ...rel.split('/')), 'utf8'))
    } catch {
      // Gone since the scan: nothing to compare.
    }
  }
  return {
    local: (rel) => localTexts.get(rel),
    remote: (id) => {
      const bytes = pageTexts.get(id)
      return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')
    },
  }
}

/** Page reads recovery makes at once where the tree carries no markdown. */
const READS_AT_ONCE = 8

/**
 * The texts of `ids` not in `pageTexts` yet, read one by one (`read`) into it: the hosted service's trees
 * carry no markdown, so without them recovery's similarity step and `editedFrom` had nothing to compare
 * and a moved, edited file became a new page. What is read stays in `pageTexts`, which the pass writes
 * from: a page recovery read is not downloaded again.
 */
export async function readPageTexts(ids: readonly string[], pageTexts: Map<string, Uint8Array>, read: (id: string) => Promise<Uint8Array>): Promise<void> {
  const missing = [...new Set(ids)].filter((id) => !pageTexts.has(id))
  for (let at = 0; at < missing.length; at += READS_AT_ONCE) {
    const batch = missing.slice(at, at + READS_AT_ONCE)
    const texts = await Promise.all(batch.map((id) => read(id)))
    batch.forEach((id, i) => pageTexts.set(id, texts[i]))
  }
}

/** How many revisions before the current one recovery reads for earlier versions of the pages. */
export const EARLIER_REVISIONS = 20

/**
 * Each page's oids in the revisions before `revisionId` (its first parents, at most EARLIER_REVISIONS:
 * main's own history), for recovery to tell a file Quire wrote long ago from the writer's edit, and an
 * edit of an old copy from one of the current page. The trees' oids, and their markdown where they carry
 * it; where they do not (the hosted service's trees), the versions of the pages in `textsOf` (the edited
 * ones) are read one by one. A revision that cannot be read ends the walk.
 *
 * A merge's second parent (the head of the change request it merged, the current revision's too) counts
 * as an earlier version: a file holding the writer's text as their merged change request carried it was
 * sent and merged, not edited since; taken for an edit, it would undo what main merged beside it while
 * the cache was lost (the randomized test's cache damage after a merge it had not pulled).
 */
export async function earlierPageVersions(
  gateway: ApiGateway,
  spaceId: string,
  revisionId: string,
  textsOf: ReadonlySet<string> = new Set(),
  summary?: LayoutOptions,
): Promise<Map<string, Map<string, string | undefined>>> {
  const out = new Map<string, Map<string, string | undefined>>()
  // Versions of the pages in `textsOf` whose tree carried no text: read from their revision afterwards.
  const unread: Array<{ pageId: string; oid: string; revision: string }> = []
  const read = async (id: string) => {
    try {
      return (await gateway.client.spaces.getRevisionById(spaceId, id)).data
    } catch {
      return undefined
    }
  }
  const take = (revision: Pick<Revision, 'id' | 'pages' | 'files'>) => {
    const visit = (pages: readonly RevisionPage[]) => {
      for (const page of pages) {
        // The tree's markdown where it carries it (the hosted service's does not: oids only).
        const text = 'markdown' in page && typeof page.markdown === 'string' ? page.markdown : undefined
        if ('git' in page && page.git?.oid) {
          const versions = out.get(page.id) ?? new Map<string, string | undefined>()
          if (text === undefined && textsOf.has(page.id) && !versions.has(page.git.oid)) unread.push({ pageId: page.id, oid: page.git.oid, revision: revision.id })
          if (text !== undefined || !versions.has(page.git.oid)) versions.set(page.git.oid, text)
          out.set(page.id, versions)
        }
        if ('pages' in page && Array.isArray(page.pages)) visit(page.pages)
      }
    }
    visit(revision.pages)
    // SUMMARY.md as that revision gave it (`summary`: where the local one is not the current one): a file
    // Quire wrote then, or the version the writer edited, told from an edit as a page's are.
    if (summary) {
      const rendered = withSummary(placeRemoteTree(revision, summary)).entries.find((e) => e.kind === 'summary')
      if (rendered?.content !== undefined) {
        const versions = out.get(SUMMARY_ENTRY_ID) ?? new Map<string, string | undefined>()
        versions.set(rendered.oid, rendered.content)
        out.set(SUMMARY_ENTRY_ID, versions)
      }
    }
  }
  // The merged change request's revisions, from its head back along first parents (each batch the writer
  // sent is one): a file may hold any of them, e.g. the writer's batch before a collaborator's edit in it.
  const mergedHead = async (revision: { parents?: string[] }) => {
    let id = revision.parents?.[1]
    for (let n = 0; id !== undefined && n < EARLIER_REVISIONS; n++) {
      const head = await read(id)
      if (!head || (head.type !== 'edits' && head.type !== 'update')) return
      take(head)
      id = head.parents?.[0]
    }
  }
  const now = await read(revisionId)
  if (!now) return out
  await mergedHead(now)
  let current = now.parents?.[0]
  for (let n = 0; current && n < EARLIER_REVISIONS; n++) {
    const revision = await read(current)
    if (!revision) break
    take(revision)
    await mergedHead(revision)
    current = revision.parents?.[0]
  }
  // One read per earlier version of an edited page; one that cannot be read stays without its text.
  for (let at = 0; at < unread.length; at += READS_AT_ONCE) {
    await Promise.all(
      unread.slice(at, at + READS_AT_ONCE).map(async ({ pageId, oid, revision }) => {
        try {
          const bytes = await new GatewayContentSource(gateway, spaceId, revision).page(pageId)
          out.get(pageId)?.set(oid, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'))
        } catch {
          // Recovery goes on without this version's text, as it would with a tree that lacks it.
        }
      }),
    )
  }
  return out
}

/** Whether some page file holds what no page of the current revision does (an edit, or an older version): only then are earlier revisions read. */
export function unexplainedPages(snapshot: RemoteSnapshot, local: LocalState): boolean {
  const oids = new Set(snapshot.entries.map((e) => e.oid))
  for (const [rel, hash] of local) if (contentKind(rel) === 'page' && !oids.has(hash)) return true
  return false
}
