import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { diffTrees, flattenPages, type RevisionTree, type TreePage } from '../../content'
import { ChangeRequestsRepository, type ChangeRequest } from '../store/change-requests'
import { RevisionsRepository } from '../store/revisions'
import type { ServiceStore } from '../store/service-store'
import { SpacesRepository, type Space } from '../store/spaces'
import { UsersRepository } from '../store/users'

/**
 * The web pages behind `urls.app` of a space and of a change request: small, read-only HTML, so that
 * "Open in browser" works against the local service too (the hosted service has its whole web app there).
 *
 * A browser has no bearer token, so these links carry an HMAC of their path, keyed by a secret of this
 * process, as download links do: whoever was given the link by the API (so may see the space) can open
 * it, nobody can make one up, and links stop working when the service restarts (clients read them
 * afresh with every change request). Every text from the store is escaped; the pages run no script and
 * their Content-Security-Policy allows nothing but their own stylesheet.
 */

export const APP_PREFIX = '/app/'
const SECRET = randomBytes(32)

const SPACE_PAGE = /^\/spaces\/([A-Za-z0-9_-]+)$/
const CHANGE_REQUEST_PAGE = /^\/spaces\/([A-Za-z0-9_-]+)\/change-requests\/([1-9][0-9]{0,9})$/

const sign = (path: string) => createHmac('sha256', SECRET).update(path).digest('base64url')

/** `urls.app`: signed for the pages this service serves (a space, a change request); other paths as they are. */
export function appPageUrl(origin: string, path: string): string {
  const served = SPACE_PAGE.test(path) || CHANGE_REQUEST_PAGE.test(path)
  return `${origin}/app${path}${served ? `?sig=${sign(path)}` : ''}`
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1f2328;background:#fff}
h1{font-size:1.5rem;margin:0 0 .25rem}.meta{color:#57606a}.badge{display:inline-block;border:1px solid #57606a;border-radius:1rem;padding:0 .5rem;font-size:.85rem}
ul{padding-left:1.25rem}code{font-size:.9rem}a{color:#0550ae}
@media (prefers-color-scheme:dark){body{color:#e6edf3;background:#0d1117}.meta{color:#9198a1}.badge{border-color:#9198a1}a{color:#79c0ff}}`
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64')

/** Nothing loads, runs, frames or submits: only the inline stylesheet above, by its hash. */
export const APP_PAGE_CSP = `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const esc = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c])

export interface AppPageReply {
  status: number
  headers: Record<string, string>
  body: Buffer
}

function html(status: number, title: string, body: string): AppPageReply {
  const page = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>\n`
  return {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': APP_PAGE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    },
    body: Buffer.from(page),
  }
}

const notFound = () => html(404, 'Not found', '<h1>Not found</h1><p>This page does not exist, or its link is not one this service gave out (links end when the service restarts).</p>')

function signatureMatches(path: string, given: string): boolean {
  const expected = Buffer.from(sign(path))
  const actual = Buffer.from(given)
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/** Answers a request under `/app/`; `origin` is the service's own (links on the page point back to it). */
export function serveAppPage(store: ServiceStore, method: string, url: URL, origin: string): AppPageReply {
  if (method !== 'GET') {
    const refused = html(405, 'Not allowed', '<h1>Only GET is allowed here</h1>')
    return { ...refused, headers: { ...refused.headers, Allow: 'GET' } }
  }
  const path = url.pathname.slice(APP_PREFIX.length - 1)
  if (!signatureMatches(path, url.searchParams.get('sig') ?? '')) return notFound()
  const spaceMatch = SPACE_PAGE.exec(path)
  const crMatch = CHANGE_REQUEST_PAGE.exec(path)
  const space = store.repo(SpacesRepository).get((spaceMatch ?? crMatch)?.[1] ?? '')
  if (!space || space.deletedAt) return notFound()
  if (spaceMatch) return spacePage(store, space, origin)
  const cr = crMatch && store.repo(ChangeRequestsRepository).resolve(space.id, crMatch[2])
  return cr ? changeRequestPage(store, space, cr, origin) : notFound()
}

const userName = (store: ServiceStore, id: string | undefined) => (id && store.repo(UsersRepository).get(id)?.display_name) || 'someone'
const crTitle = (cr: ChangeRequest) => cr.subject || 'Untitled change request'

function spacePage(store: ServiceStore, space: Space, origin: string): AppPageReply {
  const live = store.repo(ChangeRequestsRepository).listBySpace(space.id).filter((cr) => cr.status === 'open' || cr.status === 'draft')
  const items = live
    .map((cr) => `<li><a href="${esc(appPageUrl(origin, `/spaces/${space.id}/change-requests/${cr.number}`))}">#${cr.number} ${esc(crTitle(cr))}</a> <span class="badge">${esc(cr.status)}</span></li>`)
    .join('')
  return html(
    200,
    `${space.title} · Quire local service`,
    `<h1>${esc(space.title)}</h1><p class="meta">A space of the local service. Its pages are read and edited through Quire.</p>` +
      `<h2>Open change requests</h2>${items ? `<ul>${items}</ul>` : '<p>None.</p>'}`,
  )
}

const CHANGE_WORDS = { added: 'New page', edited: 'Edited', removed: 'Removed' } as const

/** The document pages the change request changes, relative to the main revision it is based on. */
function changedPages(store: ServiceStore, cr: ChangeRequest): Array<{ change: keyof typeof CHANGE_WORDS; title: string; path?: string }> {
  const revisions = store.repo(RevisionsRepository)
  const base: RevisionTree = revisions.get(cr.revisionMergedAncestor)?.tree ?? { pages: [], files: [] }
  const head = revisions.get(cr.revisionId)?.tree
  if (!head) return []
  const diff = diffTrees(base, head)
  const byId = (tree: RevisionTree) => new Map(flattenPages(tree).map((page) => [page.id, page]))
  const before = byId(base)
  const after = byId(head)
  const entry = (change: keyof typeof CHANGE_WORDS, page: TreePage | undefined) => (page ? [{ change, title: page.title || 'Untitled page', ...(page.slug ? { path: page.slug } : {}) }] : [])
  return [
    ...diff.added.flatMap((id) => entry('added', after.get(id))),
    ...diff.changed.flatMap(({ id }) => entry('edited', after.get(id))),
    ...diff.removed.flatMap((id) => entry('removed', before.get(id))),
  ]
}

function changeRequestPage(store: ServiceStore, space: Space, cr: ChangeRequest, origin: string): AppPageReply {
  const pages = changedPages(store, cr)
  const list = pages.map((p) => `<li><span class="badge">${CHANGE_WORDS[p.change]}</span> ${esc(p.title)}${p.path ? ` <code>${esc(p.path)}</code>` : ''}</li>`).join('')
  // As the API's `outdated`: main moved on since the change request was based on it.
  const live = cr.status === 'open' || cr.status === 'draft'
  const outdated = live && space.revisionId && space.revisionId !== cr.revisionMergedAncestor ? ' <span class="badge">Outdated</span>' : ''
  const merged = cr.status === 'merged' && cr.data.mergedAt ? ` · merged by ${esc(userName(store, cr.data.mergedBy))} on ${esc(cr.data.mergedAt)}` : ''
  return html(
    200,
    `#${cr.number} ${crTitle(cr)} · ${space.title}`,
    `<p class="meta"><a href="${esc(appPageUrl(origin, `/spaces/${space.id}`))}">${esc(space.title)}</a> · change request #${cr.number}</p>` +
      `<h1>${esc(crTitle(cr))}</h1>` +
      `<p><span class="badge">${esc(cr.status)}</span>${outdated}</p>` +
      `<p class="meta">By ${esc(userName(store, cr.createdBy))} · created ${esc(cr.createdAt)} · updated ${esc(cr.updatedAt)}${merged}</p>` +
      `<h2>${pages.length} page${pages.length === 1 ? '' : 's'} changed</h2>${list ? `<ul>${list}</ul>` : '<p>No page changes.</p>'}`,
  )
}
