import { parseArgs } from 'node:util'
import { ChangeRequestStatus, GitBookAPIError, type ChangeRequest } from '@gitbook/api'
import { changeRequestChanges, type ChangeRequestRow, isAuthError, mergeCheck, type MergeCheck, paginate, pullSpace, ServiceUnreachableError, type SpaceRow, updateFromMainOrConflicts } from '../engine'
import type { ChangeRequestChanges } from '../../shared/contract'
import type { CliIo } from './io'
import { isReviewCommand, reviewCommand, reviewUsage } from './review-commands'
import { SyncUpContext } from './sync-up-context'

export const crUsage = `quire cr list [--all] [--json]
quire cr show <id | number> [--space ID] [--json]
quire cr update <id | number> [--space ID]
quire cr merge <id | number> [--space ID]
quire cr pdf <id | number> [--space ID]

The writer's change requests in the synced spaces. list: the open ones (--all: merged and closed too),
from the service, or as last seen when offline. show: one of them and the pages it changes. update:
brings the space's current content into it. merge: merges it (through the outbox), then the workspace
follows the merged revision. pdf: a temporary URL of its content as PDF.
A number (#3 or 3) needs --space when several spaces have one with that number.

${reviewUsage}`

interface Listed {
  spaceId: string
  space: string
  id: string
  number: number
  status: string
  subject?: string
  updatedAt?: string
  url?: string
  open: boolean
}

export async function crCommand(args: string[], io: CliIo): Promise<number> {
  const [action, ...rest] = args
  if (isReviewCommand(action, rest)) return reviewCommand(action, rest, io)
  const { values, positionals } = parseArgs({
    args: rest,
    options: { all: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, space: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  })
  if (!action || action === '--help' || action === '-h' || values.help) {
    io.out(crUsage)
    return action ? 0 : 2
  }
  const ctx = SyncUpContext.open()
  try {
    if (action === 'list') return await list(ctx, io, values.all, values.json)
    if (!['show', 'update', 'merge', 'pdf'].includes(action)) {
      io.err(`quire cr: unknown action "${action}"\n\n${crUsage}`)
      return 2
    }
    if (positionals.length !== 1) {
      io.err(crUsage)
      return 2
    }
    const target = resolve(ctx, positionals[0], values.space)
    const space = ctx.cache.space(target.spaceId)!
    const { account, gateway } = await ctx.signedIn()
    const spaces = gateway.client.spaces
    switch (action) {
      case 'show': {
        let cr: ChangeRequest
        try {
          cr = (await spaces.getChangeRequestById(space.id, target.id)).data
        } catch (error) {
          if (!(error instanceof ServiceUnreachableError) || values.json) throw error
          return showKept(ctx, io, space, target)
        }
        // Kept for offline: the app's diff of it (read again only when its revision moved).
        await changeRequestChanges(gateway, space.id, cr.id, ctx.diffs).catch(() => undefined)
        ctx.outbox.saveChangeRequest(space.id, cr)
        const changes = (await spaces.getChangeRequestChanges(space.id, cr.id, { limit: 1000 })).data
        const carried = ctx.outbox.session(space.id)?.changeRequestId === cr.id ? ctx.outbox.entries(space.id) : []
        const merging = cr.status === 'open' || cr.status === 'draft' ? await mergeCheck(gateway, account.userId, space.id, cr.id) : undefined
        if (values.json) {
          io.out(JSON.stringify({ changeRequest: cr, changes: changes.changes, files: carried, ...(merging ? { mergeCheck: merging } : {}) }, null, 2))
          return 0
        }
        io.out(`#${cr.number} ${cr.subject || '(no subject)'}  [${cr.status}${cr.outdated ? ', outdated' : ''}]`)
        io.out(`  space: ${space.title}  id: ${cr.id}`)
        io.out(`  by ${cr.createdBy.displayName}, updated ${cr.updatedAt}`)
        io.out(`  ${cr.urls.app}`)
        for (const entry of carried) io.out(`  ${entry.state === 'deleted' ? 'deletes' : entry.kind === 'file' ? 'uploads' : 'carries'} ${entry.path}${entry.state === 'conflict' ? ' (your version; see the conflicted copy)' : ''}`)
        for (const change of changes.changes) io.out(`  ${describeChange(change)}`)
        // What the service's list of changes does not say: front matter keys and the table of contents.
        const kept = ctx.diffs.get(space.id, cr.id)?.data as ChangeRequestChanges | undefined
        for (const line of kept ? describeKept(kept).filter((l) => l.startsWith('  front matter') || l.startsWith('changes the table')) : []) io.out(`  ${line.trim()}`)
        if (merging) for (const line of describeMergeCheck(merging)) io.out(`  ${line}`)
        return 0
      }
      case 'update': {
        // Main and the writer's own change request changed the same places: the service changed nothing.
        // A push turns those pages into conflicted copies (main's version kept), then the update goes through;
        // while another Quire process syncs this workspace, its next push makes the copies, not this command.
        const push = ctx.lease.held ? async () => (await ctx.pusher(space)).push() : undefined
        const answer = await updateFromMainOrConflicts({ gateway, outbox: ctx.outbox, spaceId: space.id, changeRequestId: target.id, push })
        if (answer.refused) io.out(`#${target.number}: ${answer.refused}`)
        if (answer.result === 'refused') {
          io.err(`quire cr update: the Quire process syncing this workspace keeps your version of those places in conflicted copies at its next push; run quire cr update ${target.number} again then`)
          return 1
        }
        for (const copy of answer.copies) io.out(`  your version is kept in ${copy}`)
        io.out(answer.result === 'conflicts' ? `updated #${target.number}: both sides changed some pages; main's version is kept, yours in conflicted copies` : `updated #${target.number} from the space's content`)
        return 0
      }
      case 'merge': {
        // The rules are judged first, so a merge they refuse never waits in the outbox; the service judges again.
        const check = await mergeCheck(gateway, account.userId, space.id, target.id).catch((error: unknown) => {
          if (error instanceof ServiceUnreachableError) return undefined
          throw error
        })
        if (check && check.blockers.length > 0) {
          io.err(`quire cr merge: #${target.number} cannot be merged: ${check.blockers.join('; ')}`)
          return 1
        }
        for (const caution of check?.cautions ?? []) io.err(`note: ${caution}`)
        const pusher = await ctx.pusher(space)
        const answer = await pusher.merge(target.id)
        if (answer.result === 'pending') {
          io.err(`quire cr merge: offline; the merge waits in the outbox and goes out with the next quire watch or command`)
          return 1
        }
        if (answer.result === 'conflicts') {
          io.err(`quire cr merge: #${target.number} conflicts with the space's content: run quire cr update ${target.number} first`)
          return 1
        }
        io.out(`merged #${target.number}`)
        const folder = ctx.folderOf(space)
        if (folder) {
          await pullSpace({ gateway, cache: ctx.cache, outbox: ctx.outbox, spaceId: space.id, folder })
          io.out(`${space.title}: workspace updated to the merged revision`)
        }
        return 0
      }
      case 'pdf': {
        const { url } = (await spaces.getChangeRequestPdf(space.id, target.id)).data
        io.out(String(url))
        return 0
      }
    }
    return 2
  } catch (error) {
    // A 401 goes up as it is: quire's main says to sign in again.
    if (error instanceof GitBookAPIError && !isAuthError(error)) throw new Error(`the service answered HTTP ${error.code}: ${error.errorMessage}`)
    throw error
  } finally {
    ctx.close()
  }
}

async function list(ctx: SyncUpContext, io: CliIo, all: boolean, json: boolean): Promise<number> {
  const spaces = ctx.cache.selectedSpaces()
  const rows: Listed[] = []
  let offline = false
  try {
    const { account, gateway } = await ctx.signedIn()
    const statuses = all ? [ChangeRequestStatus.Draft, ChangeRequestStatus.Open, ChangeRequestStatus.Merged, ChangeRequestStatus.Archived] : [ChangeRequestStatus.Draft, ChangeRequestStatus.Open]
    for (const space of spaces) {
      for (const status of statuses) {
        const pages = paginate((page) => gateway.client.spaces.listChangeRequestsForSpace(space.id, { page, status, creator: account.userId, limit: 100 }).then((r) => r.data))
        for await (const cr of pages) {
          ctx.outbox.saveChangeRequest(space.id, cr)
          rows.push(listed(space, cr))
        }
      }
    }
  } catch (error) {
    if (!(error instanceof ServiceUnreachableError)) throw error
    offline = true
    for (const space of spaces) for (const cr of ctx.outbox.changeRequests(space.id)) if (all || cr.status === 'open' || cr.status === 'draft') rows.push(listedRow(space, cr))
  }
  rows.sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? '') || b.number - a.number)
  if (json) {
    io.out(JSON.stringify({ offline, changeRequests: rows }, null, 2))
    return 0
  }
  if (offline) io.err('offline: change requests as last seen')
  if (rows.length === 0) io.out(all ? 'no change requests' : 'no open change requests')
  for (const r of rows) {
    const quire = ctx.outbox.session(r.spaceId)?.changeRequestId === r.id ? '  (Quire sends your edits here)' : ''
    io.out(`#${String(r.number).padEnd(4)} ${r.status.padEnd(8)} ${r.space}: ${r.subject || '(no subject)'}${quire}`)
  }
  return 0
}

function listed(space: SpaceRow, cr: ChangeRequest): Listed {
  return { spaceId: space.id, space: space.title, id: cr.id, number: cr.number, status: cr.status, subject: cr.subject, updatedAt: cr.updatedAt, url: cr.urls.app, open: cr.status === 'open' || cr.status === 'draft' }
}

function listedRow(space: SpaceRow, cr: ChangeRequestRow): Listed {
  const data = cr.data as { updatedAt?: string; urls?: { app?: string } }
  return { spaceId: space.id, space: space.title, id: cr.id, number: cr.number, status: cr.status, subject: cr.subject, updatedAt: data.updatedAt, url: data.urls?.app, open: cr.status === 'open' || cr.status === 'draft' }
}

/** An id, or a number (#3) looked up among the change requests seen in the selected spaces. */
function resolve(ctx: SyncUpContext, ref: string, spaceId?: string): { spaceId: string; id: string; number: number } {
  const known = ctx.outbox.changeRequests(spaceId)
  const byId = known.find((cr) => cr.id === ref)
  if (byId) return { spaceId: byId.spaceId, id: byId.id, number: byId.number }
  const number = /^#?(\d+)$/.exec(ref)?.[1]
  if (number !== undefined) {
    const matches = known.filter((cr) => cr.number === Number(number))
    if (matches.length === 1) return { spaceId: matches[0].spaceId, id: matches[0].id, number: matches[0].number }
    if (matches.length > 1) throw new Error(`several spaces have a change request #${number}: add --space ID`)
  }
  if (spaceId) return { spaceId, id: ref, number: Number(number ?? 0) }
  throw new Error(`no change request ${ref} seen yet: run quire cr list, or pass --space ID with its id`)
}

function describeMergeCheck(check: MergeCheck): string[] {
  if (!check.ruled) return ['merge rules: none (it merges without review)', ...check.cautions.map((c) => `note: ${c}`)]
  const lines = [`merge rules${check.bypass ? ' (you may bypass them)' : ''}:`]
  for (const rule of check.rules) lines.push(`  ${rule.met ? 'met' : 'NOT MET'}: ${rule.asks}${rule.reason ? ` (${rule.reason})` : ''}`)
  lines.push(check.blockers.length > 0 ? `cannot be merged: ${check.blockers.join('; ')}` : 'may be merged')
  return [...lines, ...check.cautions.map((c) => `note: ${c}`)]
}

/** `cr show` offline: the change request and its diff as last read (by the app or an earlier `cr show`). */
function showKept(ctx: SyncUpContext, io: CliIo, space: SpaceRow, target: { id: string; number: number }): number {
  const kept = ctx.diffs.get(space.id, target.id)
  if (!kept) {
    io.err(`quire cr show: the service cannot be reached, and the changes of #${target.number} were never read while it could be (quire cr show or the app keep them for offline)`)
    return 1
  }
  const changes = kept.data as ChangeRequestChanges
  const row = ctx.outbox.changeRequest(target.id)
  io.out(`#${target.number} ${row?.subject || '(no subject)'}  [${row?.status ?? 'unknown'}]  offline: as last read ${kept.fetchedAt}`)
  io.out(`  space: ${space.title}  id: ${target.id}`)
  for (const line of describeKept(changes)) io.out(`  ${line}`)
  return 0
}

const KEPT_WORD = { added: 'adds page', edited: 'edits', removed: 'removes page', moved: 'moves' } as const
const KEPT_FILE_WORD = { added: 'adds file', edited: 'replaces file', removed: 'removes file' } as const

/** The lines of a kept diff: pages (renames old → new, front matter keys), files, the table of contents. */
export function describeKept(changes: ChangeRequestChanges): string[] {
  const lines: string[] = []
  for (const page of changes.pages) {
    const where = page.fromPath ? `${page.fromPath} → ${page.path ?? ''}` : (page.path ?? '')
    lines.push(`${KEPT_WORD[page.change]}: ${page.title}${where ? ` (${where})` : ''}`)
    for (const f of page.frontMatter ?? []) lines.push(`  front matter ${f.key}: ${f.before ?? '(not set)'} → ${f.after ?? '(removed)'}`)
  }
  for (const file of changes.files) lines.push(`${KEPT_FILE_WORD[file.change]}: ${file.name}${file.path ? ` (${file.path})` : ''}`)
  if (changes.summary) lines.push('changes the table of contents (SUMMARY.md): order, nesting or titles')
  return lines
}

function describeChange(change: { type: string; page?: { title?: string; path?: string }; file?: { name?: string } }): string {
  const what = change.page ? `${change.page.title ?? ''}${change.page.path ? ` (${change.page.path})` : ''}` : (change.file?.name ?? '')
  return `${change.type.replace(/_/g, ' ')}: ${what}`
}
