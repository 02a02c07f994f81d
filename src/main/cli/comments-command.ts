import { parseArgs } from 'node:util'
import { enqueueAction, type NewOutboxOp, OutboxSender, type PayloadOf, refreshPageThreads, ServiceUnreachableError, type Thread } from '../engine'
import type { CliIo } from './io'
import { SIGN_IN_HINT } from './space-states'
import { SyncUpContext } from './sync-up-context'

export const commentsUsage = `quire comments <file> [--json]

The comment threads of the page a file stands for, with their replies (read from the service and
mirrored; from the mirror when offline). Thread ids are what quire reply and quire resolve take, and
what a <!-- reply ID: text --> marker names.`

export const commentUsage = `quire comment <file> "text"

Posts a comment on the page a file stands for. The same as writing <!-- comment: text --> in the file.`

export const replyUsage = `quire reply <commentId> "text"

Replies to a comment thread (ids from quire comments). The same as <!-- reply ID: text --> in the page.`

export const resolveUsage = `quire resolve <commentId>

Marks a comment thread resolved. The same as <!-- resolve ID --> in the page.`

export async function commentsCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { json: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  if (values.help) return usage(io, commentsUsage, 0)
  if (positionals.length !== 1) return usage(io, commentsUsage, 2)
  const ctx = SyncUpContext.open()
  try {
    const { space, relative } = ctx.locate(positionals[0])
    const { pageId } = ctx.pageOf(space.id, relative)
    let threads: Thread[]
    let offline = false
    try {
      const { gateway } = await ctx.signedIn()
      threads = await refreshPageThreads(gateway, ctx.comments, space.id, pageId, ctx.outbox.session(space.id)?.changeRequestId)
    } catch (error) {
      if (!(error instanceof ServiceUnreachableError)) throw error
      offline = true
      threads = ctx.comments.threadsOfPage(space.id, pageId)
    }
    if (values.json) {
      io.out(JSON.stringify({ space: space.id, page: pageId, file: relative, offline, threads }, null, 2))
      return 0
    }
    if (offline) io.err('offline: showing the threads as last read')
    if (threads.length === 0) io.out(`no comments on ${relative}`)
    for (const thread of threads) {
      const where = thread.changeRequestId ? ' (in a change request)' : ''
      io.out(`${thread.id}  ${thread.author}, ${thread.postedAt}${thread.status === 'resolved' ? '  [resolved]' : ''}${where}`)
      io.out(indent(thread.markdown, '    '))
      for (const reply of thread.replies) {
        io.out(`    ↳ ${reply.author}, ${reply.postedAt}`)
        io.out(indent(reply.markdown, '      '))
      }
    }
    return 0
  } finally {
    ctx.close()
  }
}

export async function commentCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  if (values.help) return usage(io, commentUsage, 0)
  if (positionals.length !== 2 || positionals[1].trim() === '') return usage(io, commentUsage, 2)
  const ctx = SyncUpContext.open()
  try {
    const { space, relative } = ctx.locate(positionals[0])
    const { pageId, inMain } = ctx.pageOf(space.id, relative)
    return await post(ctx, io, space.id, 'comment', (userId) => ({ pageId, text: positionals[1].trim(), target: inMain ? 'space' : 'change-request', userId }))
  } finally {
    ctx.close()
  }
}

export async function replyCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { space: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  if (values.help) return usage(io, replyUsage, 0)
  if (positionals.length !== 2 || positionals[1].trim() === '') return usage(io, replyUsage, 2)
  const ctx = SyncUpContext.open()
  try {
    const { spaceId, changeRequestId } = threadScope(ctx, positionals[0], values.space)
    return await post(ctx, io, spaceId, 'reply', (userId) => ({ commentId: positionals[0], text: positionals[1].trim(), userId, ...(changeRequestId ? { changeRequestId } : {}) }))
  } finally {
    ctx.close()
  }
}

export async function resolveCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { space: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true })
  if (values.help) return usage(io, resolveUsage, 0)
  if (positionals.length !== 1) return usage(io, resolveUsage, 2)
  const ctx = SyncUpContext.open()
  try {
    const { spaceId, changeRequestId } = threadScope(ctx, positionals[0], values.space)
    return await post(ctx, io, spaceId, 'resolve', () => ({ commentId: positionals[0], ...(changeRequestId ? { changeRequestId } : {}) }))
  } finally {
    ctx.close()
  }
}

/** The space (and change request) of a thread, from the mirror; `--space` when the thread was never read. */
function threadScope(ctx: SyncUpContext, commentId: string, space?: string): { spaceId: string; changeRequestId?: string } {
  const thread = ctx.comments.thread(commentId)
  if (thread) return { spaceId: thread.spaceId, changeRequestId: thread.changeRequestId }
  if (space) return { spaceId: space }
  throw new Error(`comment ${commentId} is not known here: list the page's threads with quire comments <file> first, or pass --space ID`)
}

/**
 * Queues the op in the space's current push session, as the signed-in writer, and sends it. Its key is
 * what it is (outbox/action-keys.ts): run again, the command finds its op queued or sent and says so.
 */
async function post<K extends 'comment' | 'reply' | 'resolve'>(
  ctx: SyncUpContext,
  io: CliIo,
  spaceId: string,
  kind: K,
  payload: (userId: string) => PayloadOf[K],
): Promise<number> {
  const { account, gateway } = await ctx.signedIn()
  const session = ctx.outbox.ensureSession(spaceId, account.userId)
  const op = { spaceId, generation: session.generation, kind, payload: payload(account.userId) } as Omit<NewOutboxOp, 'key'>
  const { seq, repeat } = enqueueAction(op, { outbox: ctx.outbox, comments: ctx.comments, userId: account.userId })
  const done = (id?: string) => `${kind === 'resolve' ? 'resolved' : 'posted'} ${id ?? ''}`.trim()
  if (repeat === 'sent') {
    io.out(`already sent: ${done((ctx.outbox.op(seq)?.result as { id?: string } | undefined)?.id)} (the same ${kind} was sent before; nothing sent again)`)
    return 0
  }
  // Sends the space's outbox: offline, the op waits for quire watch or the next command.
  const drained = await new OutboxSender(gateway, ctx.outbox, ctx.comments).drain(spaceId)
  const sent = ctx.outbox.op(seq)
  if (sent?.state === 'done') {
    io.out(done((sent.result as { id?: string } | undefined)?.id))
    return 0
  }
  if (sent?.state === 'failed') {
    io.err(`quire ${kind}: the service refused it: ${sent.lastError ?? 'unknown error'}`)
    return 1
  }
  const why = drained.stopped?.reason === 'signed-out' ? `the service refused the saved token (HTTP 401); ${SIGN_IN_HINT}` : (drained.stopped?.message ?? 'not sent yet')
  if (repeat === 'queued') {
    // Asked again while it waits: the same op, not a second one. Not a failure of this run.
    io.out(`already queued: the same ${kind} waits in the outbox (${why}); it goes out once, with the next quire watch or command`)
    return 0
  }
  if (drained.stopped?.reason === 'signed-out') {
    // The raw refusal quotes the request; the writer needs to know what to run.
    io.err(`quire ${kind}: ${why}. It waits in the outbox and goes out once you are signed in`)
    return 1
  }
  io.err(`quire ${kind}: ${why}; it waits in the outbox and goes out with the next quire watch or command`)
  return 1
}

function usage(io: CliIo, text: string, code: number): number {
  if (code === 0) io.out(text)
  else io.err(text)
  return code
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n')
}
