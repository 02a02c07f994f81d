import fs from 'node:fs'
import path from 'node:path'
import type { CacheRepository } from '../cache/cache-repository'
import { ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'
import type { IndexedSpace, LocalSearchIndex, SnippetPart } from './local-index'
import { queryTerms } from './query-syntax'
import type { SearchHit } from '../../../shared/contract'

export type { SnippetPart } from './local-index'

/** A space a search covers: its folder (when it has one yet), and its organization (for the service's search). */
export interface SearchedSpace {
  spaceId: string
  title: string
  organizationId?: string
  folder?: string
}

/** One result: the contract's hit (a file at a line, or a page only the service found), with the page's id the engine keeps. */
export type SearchResult = SearchHit & { pageId?: string }

export interface SearchAnswer {
  results: SearchResult[]
  /** What became of the service's search: asked (and how many it found), not asked, or failed. */
  remote: { asked: true; found: number } | { asked: false; reason: string } | { asked: true; failed: string }
}

export interface SearchOptions {
  limit?: number
  /** The last word is a prefix (search as you type). */
  prefixLast?: boolean
  /** Why the service is not to be asked (offline, not signed in, --local); undefined: ask it when a gateway is given. */
  skipRemote?: string
  /** How long the service's search may take before the local results are answered alone (a search box should not wait out retries). */
  remoteTimeoutMs?: number
}

/**
 * A search over the space folders (the local index, true to the folders) and, beside it when it can
 * be asked, the service's search of each space's current revision; results merged: local first, best
 * first (they have a line to open, and hold the writer's unsent edits), then the pages only the
 * service found. A page both found is one local result, marked `alsoRemote`.
 */
export async function searchWorkspace(
  index: LocalSearchIndex,
  cache: CacheRepository,
  gateway: ApiGateway | undefined,
  spaces: readonly SearchedSpace[],
  query: string,
  options: SearchOptions = {},
): Promise<SearchAnswer> {
  const limit = options.limit ?? 20
  const titles = new Map(spaces.map((s) => [s.spaceId, s.title]))
  const indexed: IndexedSpace[] = spaces.flatMap((s) => (s.folder ? [{ spaceId: s.spaceId, folder: s.folder }] : []))
  // Throws EmptyQueryError before anything is asked of anyone.
  const local = index.query(query, indexed, { limit, prefixLast: options.prefixLast })
  const results: SearchResult[] = local.map((hit) => ({ source: 'local', spaceId: hit.spaceId, spaceTitle: titles.get(hit.spaceId), title: hit.title, path: hit.path, file: hit.file, line: hit.line, snippet: hit.snippet }))
  const skip = options.skipRemote ?? (gateway ? undefined : 'not signed in')
  if (skip !== undefined || !gateway) return { results, remote: { asked: false, reason: skip ?? 'not signed in' } }
  let pages: RemotePage[]
  try {
    const asked = servicePages(gateway, spaces, query, limit)
    pages = options.remoteTimeoutMs === undefined ? await asked : await withinTime(asked, options.remoteTimeoutMs)
  } catch (error) {
    const reason = error instanceof ServiceUnreachableError ? 'the service cannot be reached' : error instanceof Error ? error.message : String(error)
    return { results, remote: { asked: true, failed: reason } }
  }
  const byFile = new Map(results.map((r) => [`${r.spaceId}\n${r.path}`, r]))
  for (const page of pages) {
    const localPath = cache.pageLocation(page.spaceId, page.pageId)?.localPath
    const same = localPath ? byFile.get(`${page.spaceId}\n${localPath}`) : undefined
    if (same) {
      same.alsoRemote = true
      same.pageId = page.pageId
      same.url = page.url
      continue
    }
    const folder = indexed.find((s) => s.spaceId === page.spaceId)?.folder
    const file = localPath && folder ? path.join(folder, ...localPath.split('/')) : undefined
    results.push({
      source: 'remote',
      spaceId: page.spaceId,
      spaceTitle: titles.get(page.spaceId) ?? page.spaceTitle,
      title: page.title,
      // Its file, when one is there to open (the writer may have deleted it: then the service's page only).
      ...(file && fs.existsSync(file) ? { path: localPath, file } : {}),
      snippet: markTerms(page.body, query),
      url: page.url,
      pageId: page.pageId,
    })
  }
  return { results, remote: { asked: true, found: pages.length } }
}

class NoAnswerInTime extends Error {}

/** `work`, or a failure saying the service did not answer in time (the work goes on, its answer unused). */
async function withinTime<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NoAnswerInTime(`the service did not answer within ${Math.round(ms / 1000)} s`)), ms)
  })
  work.catch(() => undefined)
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

interface RemotePage {
  spaceId: string
  spaceTitle?: string
  pageId: string
  title: string
  body: string
  url: string
}

/** The service's search: one request per organization (its search covers each space the writer may read), or per space without one. */
async function servicePages(gateway: ApiGateway, spaces: readonly SearchedSpace[], query: string, limit: number): Promise<RemotePage[]> {
  const text = query.slice(0, 512)
  const orgs = [...new Set(spaces.flatMap((s) => (s.organizationId ? [s.organizationId] : [])))]
  const wanted = new Set(spaces.map((s) => s.spaceId))
  const out: RemotePage[] = []
  const pageOf = (spaceId: string, spaceTitle: string | undefined, p: { id: string; title: string; description?: string; sections?: Array<{ body: string }>; urls: { app: string } }): RemotePage => ({
    spaceId,
    spaceTitle,
    pageId: p.id,
    title: p.title,
    body: p.sections?.[0]?.body || p.description || '',
    url: p.urls.app,
  })
  if (orgs.length > 0 && spaces.every((s) => s.organizationId)) {
    for (const org of orgs) {
      const { data } = await gateway.client.orgs.searchOrganizationContent(org, { query: text, limit })
      // The organization's other spaces are not the ones asked about (a --space search, or spaces not synced).
      for (const space of data.items) if (wanted.has(space.id)) for (const p of space.pages) out.push(pageOf(space.id, space.title, p))
    }
  } else {
    for (const space of spaces) {
      const { data } = await gateway.client.spaces.searchSpaceContent(space.spaceId, { query: text, limit })
      for (const p of data.items) out.push(pageOf(space.spaceId, space.title, p))
    }
  }
  return out
}

/** The service's text for a page with the query's words marked (its answer does not mark them), about a line long. */
function markTerms(body: string, query: string): SnippetPart[] {
  const line = body.replace(/\s+/g, ' ').trim().slice(0, 160)
  const words = queryTerms(query).flatMap((t) => t.text.split(/[^\p{L}\p{N}]+/u)).filter((w) => w.length > 0)
  if (words.length === 0 || line === '') return line ? [{ text: line }] : []
  const pattern = new RegExp(`(${words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})[\\p{L}\\p{N}]*`, 'giu')
  const parts: SnippetPart[] = []
  let at = 0
  for (const m of line.matchAll(pattern)) {
    if (m.index > at) parts.push({ text: line.slice(at, m.index) })
    parts.push({ text: m[0], match: true })
    at = m.index + m[0].length
  }
  if (at < line.length) parts.push({ text: line.slice(at) })
  return parts
}
