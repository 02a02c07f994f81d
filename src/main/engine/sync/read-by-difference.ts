import type { RevisionFile } from '@gitbook/api'
import { gitBlobOid } from '../../content'
import type { CacheRepository } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import { byDifference, keptTreeOf, MAX_CHAIN, patchKeptTree, planDifference, walkContinues, type ChainStep, type KeptTree } from './remote-difference'
import type { PlacedRevision } from './remote-snapshot'

/**
 * Sync down by difference (issue 29), the doing half: walks from the space's revision back to the one
 * the last pass synced (each step's changes, then its parents from its tree without markdown or git
 * metadata), asks `planDifference`, and reads only the pages and files it names. A
 * one-page edit costs three requests after the space's: the revision, its changes, the page.
 * Undefined whenever the whole tree must be read (the plan says so, or an answer was not as expected).
 */
export async function readByDifference(
  cache: CacheRepository,
  gateway: ApiGateway,
  spaceId: string,
  target: string,
  syncedRevision: string | undefined,
): Promise<{ revision: PlacedRevision; parents: string[]; pageTexts: Map<string, Uint8Array> } | undefined> {
  const kept = keptTree(cache, spaceId)
  if (syncedRevision === undefined || kept?.revision !== syncedRevision || target === syncedRevision) return undefined
  const spaces = gateway.client.spaces
  try {
    const chain: ChainStep[] = []
    do {
      const id = chain.length === 0 ? target : chain[chain.length - 1].parents[0]
      // The changes first, one after the other on one connection (a second connection costs more than a
      // round trip): where they already ask for the whole tree, the revision is not read at all.
      const { data: changes } = await spaces.getRevisionSemanticChanges(spaceId, id, { limit: CHANGES_LIMIT })
      if (!changes.changes.every(byDifference) || (changes.more ?? 0) > 0) return undefined
      const { data: revision } = await spaces.getRevisionById(spaceId, id, { metadata: false, computed: false })
      chain.push({ id: revision.id, parents: revision.parents, changes: changes.changes, more: changes.more ?? 0 })
    } while (walkContinues(chain, syncedRevision, MAX_CHAIN))
    const plan = planDifference({ syncedRevision, kept, chain })
    if (plan.kind === 'whole') return undefined
    // By its path where the changes give it (ids otherwise): the answer is the same page at the same revision.
    const paths = new Map<string, string>()
    for (const step of chain) for (const change of step.changes) if (change.type === 'page_edited' && change.page.path && !paths.has(change.page.id)) paths.set(change.page.id, change.page.path)
    const readPage = (id: string) => {
      const at = paths.get(id)
      return at !== undefined ? spaces.getPageInRevisionByPath(spaceId, target, at, { format: 'markdown' }) : spaces.getPageInRevisionById(spaceId, target, id, { format: 'markdown' })
    }
    const pageTexts = new Map<string, Uint8Array>()
    const pages = new Map<string, { git?: { oid: string; path: string } }>()
    const files: RevisionFile[] = []
    await Promise.all([
      ...plan.pages.map(async (id) => {
        const { data } = await readPage(id)
        if (data.id !== id) throw new Error(`the page at the path of ${id} is ${data.id}`)
        const git = 'git' in data ? data.git : undefined
        pages.set(id, { git })
        // The markdown the answer carries is the page's file when it hashes to its oid: the pass writes it without reading it again.
        const markdown = 'markdown' in data && typeof data.markdown === 'string' ? utf8.encode(data.markdown) : undefined
        if (git && markdown && gitBlobOid(markdown) === git.oid) pageTexts.set(id, markdown)
      }),
      ...plan.files.map(async (id) => files.push((await spaces.getFileInRevisionById(spaceId, target, id)).data)),
    ])
    const patched = patchKeptTree(kept, target, pages, files)
    return { revision: { id: patched.revision, pages: patched.pages, files: patched.files, tags: patched.tags, reusableContents: patched.reusableContents }, parents: [...chain[0].parents], pageTexts }
  } catch {
    // An answer missing or not as expected (an older service without the changes operation, a revision
    // gone): the whole tree tells what the difference could not.
    return undefined
  }
}

/** Changes asked of each revision: one more than a pass takes by difference is already a whole read. */
const CHANGES_LIMIT = 50

const utf8 = new TextEncoder()

const keptSetting = (spaceId: string) => `kept_tree:${spaceId}`

/** The tree the last pass kept of the revision it read (see `keepTree`). */
export function keptTree(cache: CacheRepository, spaceId: string): KeptTree | undefined {
  const text = cache.setting(keptSetting(spaceId))
  if (text === undefined || text === '') return undefined
  try {
    return JSON.parse(text) as KeptTree
  } catch {
    return undefined
  }
}

/** Keeps a revision's tree (no page content) for the next pass to patch. */
export function keepTree(cache: CacheRepository, spaceId: string, revision: PlacedRevision) {
  cache.setSetting(keptSetting(spaceId), JSON.stringify(keptTreeOf(revision)))
}

/** Forgets the kept tree: the next pass reads the whole tree. */
export function forgetKeptTree(cache: CacheRepository, spaceId: string) {
  cache.setSetting(keptSetting(spaceId), '')
}
