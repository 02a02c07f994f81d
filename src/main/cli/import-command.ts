import { parseArgs } from 'node:util'
import { GitBookAPIError } from '@gitbook/api'
import { redactedMessage, SyncEngine, type AccountRow, type ApiGateway, type OpenWorkspace, type SpaceRow } from '../engine'
import { contentApiImport, deleteIfUnused, gitImport, ImportInputError, readSourceTree, unsentLocalWork, type ImportContext, type ImportNote, type ImportOutcome, type ImportStrategy, type SourceTree } from '../engine/import'
import type { CliIo } from './io'
import { openCommandWorkspace } from './command-workspace'
import { stderrProgress } from './progress'
import { printSessionEvents } from './session-output'
import { SIGN_IN_HINT } from './space-states'

export const importUsage = `quire import <folder> (--space ID | --org ID --title TITLE) [--workspace DIR] [--json]

Brings a Git Sync tree (its .gitbook.yaml root and structure honoured) into one change request of a
space: --space an existing one, or --org and --title a new one created first. The space is mirrored into
the workspace, the tree's pages (those its SUMMARY.md lists), SUMMARY.md, README and every file under
.gitbook/assets/ and .gitbook/includes/ are copied into its folder, and the same push as quire watch's
sends them. Killed, the same command goes on where it stopped. Refuses a space folder holding edits not
sent yet. Ends with a report of everything the content API could not represent (groups, separators,
URL entries, files left out, pages that will not come back byte for byte), each with its reason.

A tree that is a git repository (committed, nothing pending) going into a space that holds nothing yet
(a new one) is imported by the service's own Git import instead, when the service offers it: groups,
URL entries and separators come through, and the space's content is the import (nothing to review).
A tree the service refuses (too big for its Git import, say) goes through the content API instead, the
service's reason in the report. A space made with --org/--title that nothing reached when the import
fails is deleted.`

/** Where the service's Git import strategy goes, before the content API's (the first that applies runs). */
export const importStrategies: ImportStrategy[] = [gitImport, contentApiImport]

export async function importCommand(args: string[], io: CliIo, strategies: readonly ImportStrategy[] = importStrategies): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      space: { type: 'string' },
      org: { type: 'string' },
      title: { type: 'string' },
      workspace: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  })
  if (values.help) {
    io.out(importUsage)
    return 0
  }
  const usage = (message: string) => {
    io.err(`quire import: ${message}\n\n${importUsage}`)
    return 2
  }
  if (positionals.length !== 1) return usage(positionals.length === 0 ? 'give the folder of the Git Sync tree' : 'give one folder')
  if (values.space && (values.org || values.title)) return usage('--space cannot be combined with --org/--title')
  if (!values.space && !(values.org && values.title)) return usage('choose the space: --space ID, or --org ID with --title TITLE for a new one')

  let tree: SourceTree
  try {
    tree = await readSourceTree(positionals[0])
  } catch (error) {
    if (!(error instanceof ImportInputError)) throw error
    io.err(`quire import: ${error.message}`)
    return 2
  }

  const ctx = await openCommandWorkspace(io, 'import', {
    lease: 'import',
    exclusive: true,
    held: 'stop it first',
    signedOut: 'not signed in; run quire login --endpoint URL first',
    folder: values.workspace,
    watch: false,
    onProgress: stderrProgress(io),
  })
  if (typeof ctx === 'number') return ctx
  try {
    const { account, gateway } = ctx
    const target = await targetSpace(ctx, account, gateway, tree, values)
    if (typeof target === 'string') {
      io.err(`quire import: ${target}`)
      return 2
    }
    const { space, createdKey } = target
    select(ctx, account, space.id)
    const recordKey = `import:${space.id}`
    // A space this command made (now or in a run before) that nothing of the import reached is deleted
    // when the import fails, rather than left empty; one the writer named (--space) never is.
    const discardUnused = async (): Promise<string | undefined> => {
      if (!createdKey) return undefined
      const { deleted, said } = await deleteIfUnused({ gateway, cache: ctx.cache, outbox: ctx.outbox, accountId: account.id, spaceId: space.id }, `${space.title} (${space.id})`)
      if (deleted) {
        // The same command run again makes a new space rather than looking for this one.
        ctx.cache.setSetting(createdKey, '')
        ctx.cache.setSetting(recordKey, '')
      }
      return said
    }
    try {
      return await importIntoSpace({ io, ctx, tree, space, recordKey, strategies, json: values.json === true, discardUnused })
    } catch (error) {
      if (error instanceof GitBookAPIError && error.code === 401) throw error
      const said = await discardUnused().catch(() => undefined)
      if (said === undefined) throw error
      io.err(`quire import: ${redactedMessage(error)}`)
      io.err(`quire import: ${said}`)
      return 1
    }
  } finally {
    await ctx.close()
  }
}

interface ImportRun {
  io: CliIo
  ctx: OpenWorkspace
  tree: SourceTree
  space: SpaceRow
  /** The cache setting that remembers this space's import while its change request is open. */
  recordKey: string
  strategies: readonly ImportStrategy[]
  json: boolean
  /** Deletes the space when this command created it and nothing reached it; what was done, if anything. */
  discardUnused(): Promise<string | undefined>
}

/** Mirrors the space, checks its folder holds no unsent work, runs the first strategy that applies and reports. */
async function importIntoSpace({ io, ctx, tree, space, recordKey, strategies, json, discardUnused }: ImportRun): Promise<number> {
  const { gateway, session } = ctx
  const printEvent = printSessionEvents(io, ctx.cache, ctx.outbox)
  session.observe((event) => (event.type === 'push' ? undefined : printEvent(event)))
  io.out(`importing ${tree.root} into ${space.title} (${space.id}); workspace: ${ctx.workspace}`)
  const pass = await session.pass()
  if (session.signedOutReason) {
    io.err(`quire import: the service refused the saved token (HTTP 401); ${SIGN_IN_HINT}`)
    return 1
  }
  const mirrored = pass?.spaces.find((s) => s.spaceId === space.id)
  const folder = ctx.folderOf(ctx.cache.space(space.id) ?? space)
  if (!mirrored || mirrored.state !== 'synced' || !folder) {
    io.err(`quire import: the space could not be mirrored first (${mirrored ? `${mirrored.state}${mirrored.message ? `: ${mirrored.message}` : ''}` : 'no pass ran'}); nothing was copied`)
    const said = await discardUnused()
    if (said) io.err(`quire import: ${said}`)
    return 1
  }

  // An import stopped (or finished) whose change request is still open goes on: the folder's unsent
  // work is its own. Any other unsent work in the folder refuses the import.
  const started = await liveImport(ctx, gateway, space.id, recordKey)
  if (started && started.source !== tree.root) {
    io.err(`quire import: an import of ${started.source} into this space is not merged yet (its change request is open); finish it before importing another tree`)
    return 1
  }
  if (!started) {
    const unsent = await unsentLocalWork(folder, ctx.cache, ctx.outbox, space.id)
    if (unsent.length > 0) {
      const shown = unsent.slice(0, 8).map((u) => `  ${u}`)
      if (unsent.length > 8) shown.push(`  … and ${unsent.length - 8} more`)
      io.err(`quire import: ${folder} holds work not sent to the service yet; send it (quire watch --once) or move it away first, so nothing of it is lost or mixed into the import:\n${shown.join('\n')}`)
      return 1
    }
    ctx.cache.setSetting(recordKey, JSON.stringify({ source: tree.root, startedAt: new Date().toISOString() } satisfies ImportRecord))
  }

  const importContext: ImportContext = { tree, space, folder, session, cache: ctx.cache, outbox: ctx.outbox, gateway, progress: importProgress(io, printEvent, space.id) }
  let strategy: ImportStrategy | undefined
  for (const candidate of strategies) {
    if (!(await candidate.applies(importContext))) continue
    strategy = candidate
    break
  }
  if (!strategy) throw new Error('no import strategy applies')
  const outcome = await strategy.run(importContext)
  await session.stop()
  // Kept with its change request: the same command run again finds its own work, not a writer's edits.
  // Finished with nothing to send (the space held the tree already): nothing of it is left to find.
  if (outcome.changeRequest) ctx.cache.setSetting(recordKey, JSON.stringify({ ...(started ?? { source: tree.root, startedAt: new Date().toISOString() }), changeRequestId: outcome.changeRequest.id } satisfies ImportRecord))
  else if (outcome.complete) ctx.cache.setSetting(recordKey, '')
  if (json) io.out(JSON.stringify({ space: { id: space.id, title: space.title }, folder, ...outcome }, null, 2))
  else for (const line of reportLines(outcome)) io.out(line)
  if (!outcome.complete && session.signedOutReason) {
    io.err(`quire import: not finished: the service refused the saved token (HTTP 401); ${SIGN_IN_HINT}, then run the same command again to go on`)
    return 1
  }
  if (!outcome.complete) {
    io.err(`quire import: not finished: ${outcome.waiting}; run the same command again to go on (nothing is copied twice, the outbox keeps what waits)`)
    return 1
  }
  return 0
}

/** The space to import into: `--space`, or the one this tree's import created in `--org` (made now when none). */
async function targetSpace(
  ctx: OpenWorkspace,
  account: AccountRow,
  gateway: ApiGateway,
  tree: SourceTree,
  values: { space?: string; org?: string; title?: string },
): Promise<{ space: SpaceRow; createdKey?: string } | string> {
  const engine = new SyncEngine({ cache: ctx.cache, account, gateway, workspace: ctx.workspace })
  // Remembered before anything is copied, so a run after a kill finds the space it made rather than making another.
  const createdKey = values.org ? `import-created:${values.org}:${values.title}:${tree.root}` : undefined
  let id = values.space ?? (createdKey ? ctx.cache.setting(createdKey) || undefined : undefined)
  if (!id) {
    try {
      id = (await gateway.client.orgs.createSpace(values.org!, { title: values.title! })).data.id
    } catch (error) {
      if (error instanceof GitBookAPIError && (error.code === 404 || error.code === 403)) return `no organization ${values.org} (or you cannot create spaces in it); quire spaces lists the ids`
      throw error
    }
    ctx.cache.setSetting(createdKey!, id)
  }
  try {
    await engine.resolveSpaces([id])
  } catch (error) {
    if (error instanceof Error && /^no space /.test(error.message)) return `${error.message}; quire spaces lists the ids`
    throw error
  }
  return { space: ctx.cache.space(id)!, ...(createdKey ? { createdKey } : {}) }
}

/** An import into a space, kept in the cache's settings while its change request is open. */
interface ImportRecord {
  source: string
  startedAt: string
  changeRequestId?: string
}

/** The import recorded for the space, unless its change request was merged or closed since (then the record goes). */
async function liveImport(ctx: OpenWorkspace, gateway: ApiGateway, spaceId: string, key: string): Promise<ImportRecord | undefined> {
  const text = ctx.cache.setting(key)
  if (!text) return undefined
  const record = JSON.parse(text) as ImportRecord
  if (!record.changeRequestId) return record
  try {
    const { status } = (await gateway.client.spaces.getChangeRequestById(spaceId, record.changeRequestId)).data
    if (status === 'open' || status === 'draft') return record
  } catch (error) {
    if (!(error instanceof GitBookAPIError && error.code === 404)) throw error
  }
  ctx.cache.setSetting(key, '')
  return undefined
}

/** Adds the space to the remembered selection (the others stay selected). */
function select(ctx: OpenWorkspace, account: AccountRow, spaceId: string) {
  const cache = ctx.cache
  if (cache.selectedSpaces().some((s) => s.id === spaceId)) return
  const organizations = cache.organizations(account.id)
  cache.setSelection({
    organizations: organizations.filter((o) => o.selected).map((o) => o.id),
    collections: organizations.flatMap((o) => cache.collections(o.id).filter((c) => c.selected).map((c) => c.id)),
    spaces: [...cache.spaces().filter((s) => s.selected).map((s) => s.id), spaceId],
  })
}

/** Copy progress drawn as quire sync draws its passes; the push said as quire watch says it. */
function importProgress(io: CliIo, printEvent: ReturnType<typeof printSessionEvents>, spaceId: string): ImportContext['progress'] {
  const draw = stderrProgress(io)
  const label = 'copying'
  return {
    phase: (text) => io.out(text),
    copying(done, total, path) {
      if (done === 1) {
        draw({ type: 'space-started', spaceId, label })
        draw({ type: 'space-planned', spaceId, label, total })
      }
      draw({ type: 'step', spaceId, label, step: { index: done, total, outcome: 'done', action: { type: 'adopt', id: path, kind: 'file', path, oid: '' } } })
      if (done === total) draw({ type: 'space-finished', spaceId, label, state: 'synced' })
    },
    pushed: (result) => printEvent({ type: 'push', spaceId, result }),
  }
}

/** The closing report: what went where, then every note with its reason, grouped by kind. */
export function reportLines(outcome: ImportOutcome): string[] {
  const lines: string[] = []
  const cr = outcome.changeRequest
    ? `change request${outcome.changeRequest.number !== undefined ? ` #${outcome.changeRequest.number}` : ''} (${outcome.changeRequest.id})`
    : outcome.revision
      ? `the space's content is revision ${outcome.revision} (a new space: nothing to review, no change request)`
      : 'no change request (nothing to send)'
  lines.push(`import (${outcome.strategy}): ${outcome.copied} file(s) copied, ${outcome.alreadyThere} already there; ${cr}`)
  const v = outcome.verification
  if (v) lines.push(`${v.identical}/${v.total} pages and SUMMARY.md will come back byte for byte; ${v.uploaded}/${v.assets} assets uploaded`)
  const byKind = new Map<string, ImportNote[]>()
  for (const note of outcome.notes) byKind.set(note.kind, [...(byKind.get(note.kind) ?? []), note])
  if (byKind.size > 0) lines.push('not represented, or not as written:')
  for (const [kind, notes] of byKind) {
    lines.push(`  ${kind} (${notes.length}):`)
    for (const note of notes) lines.push(`    ${note.path ? `${note.path}: ` : ''}${note.reason}`)
  }
  return lines
}
