import { type CacheRepository, filesOf, type OutboxOp, type OutboxRepository } from '../engine'

/** Operations looked at per space after a push: comfortably more than one push answers. */
const WINDOW = 200
const MARKERS = new Set<OutboxOp['kind']>(['comment', 'reply', 'resolve'])

/**
 * Which outbox operations this process has seen answered, so `quire watch` says "sent" once for each
 * change and comment the service now has, and "queued" once for a comment that has to wait. The
 * session's push event says how many were sent; the outbox says which. Operations answered before the
 * watch started are not this watch's news; ones waiting then are, once they go out.
 */
export class SentOps {
  private readonly newestAtStart: number
  private readonly waitingAtStart: Set<number>
  private readonly told = new Set<number>()
  private readonly toldQueued = new Set<number>()

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly cache: CacheRepository,
  ) {
    this.waitingAtStart = new Set(outbox.unfinished().map((op) => op.seq))
    this.newestAtStart = Math.max(0, ...cache.spaces().map((s) => outbox.ops(s.id, 1)[0]?.seq ?? 0))
  }

  /** Lines for the space's operations answered since the last call, oldest first. */
  sent(spaceId: string, changeRequestNumber: number | undefined): string[] {
    const lines: string[] = []
    for (const op of this.outbox.ops(spaceId, WINDOW).reverse()) {
      if (op.state !== 'done' || this.told.has(op.seq) || !this.isNews(op)) continue
      this.told.add(op.seq)
      const line = this.describeSent(op, changeRequestNumber)
      if (line) lines.push(line)
    }
    return lines
  }

  /** Lines for comments, replies and resolutions written to the outbox and not sent yet (each once). */
  queued(spaceId: string): string[] {
    const lines: string[] = []
    for (const op of this.outbox.unfinished(spaceId)) {
      if (!MARKERS.has(op.kind) || this.toldQueued.has(op.seq)) continue
      this.toldQueued.add(op.seq)
      lines.push(this.describeMarker(op, 'queued'))
    }
    return lines
  }

  private isNews(op: OutboxOp): boolean {
    return op.seq > this.newestAtStart || this.waitingAtStart.has(op.seq)
  }

  private describeSent(op: OutboxOp, changeRequestNumber: number | undefined): string | undefined {
    const cr = (id?: string) => {
      const number = (id ? this.outbox.changeRequest(id)?.number : undefined) ?? changeRequestNumber
      return number === undefined ? 'the change request' : `change request #${number}`
    }
    switch (op.kind) {
      case 'create-cr': {
        const number = (op.result as { number?: number } | undefined)?.number
        return `change request ${number === undefined ? '' : `#${number} `}opened: ${op.payload.subject}`
      }
      case 'content': {
        const files = filesOf(op)
        const what = files.length > 0 ? listed(files) : `${op.payload.changes.length} change${op.payload.changes.length === 1 ? '' : 's'}`
        return `sent to ${cr()}: ${what}`
      }
      case 'comment':
      case 'reply':
      case 'resolve':
        return this.describeMarker(op, 'sent')
      case 'merge':
        return `${cr(op.payload.changeRequestId)} merged`
      case 'update-from-main':
        return `${cr(op.payload.changeRequestId)} updated from main`
      case 'update-cr':
        return undefined // the subject follows the pages changed: the content lines say more
      default: {
        // The review workflow's ops (the app queues them; whoever holds the workspace sends them).
        const id = (op.payload as { changeRequestId?: string }).changeRequestId
        return `${op.kind.replace(/-/g, ' ')} sent${id ? ` for ${cr(id)}` : ''}`
      }
    }
  }

  /** "comment sent on faq.md (thread ID): text", "reply queued to thread ID: text", "thread ID resolved". */
  private describeMarker(op: OutboxOp, verb: 'sent' | 'queued'): string {
    const where = (op.kind === 'comment' || op.kind === 'reply' || op.kind === 'resolve') && op.payload.marker ? ` (from ${op.payload.marker.path})` : ''
    switch (op.kind) {
      case 'comment': {
        const page = op.payload.marker?.path ?? this.cache.pageLocation(op.spaceId, op.payload.pageId)?.localPath ?? `page ${op.payload.pageId}`
        const thread = (op.result as { id?: string } | undefined)?.id
        return `comment ${verb} on ${page}${thread ? ` (thread ${thread})` : ''}: ${excerpt(op.payload.text)}`
      }
      case 'reply':
        return `reply ${verb} to thread ${op.payload.commentId}${where}: ${excerpt(op.payload.text)}`
      case 'resolve':
        return `resolution of thread ${op.payload.commentId}${where} ${verb}`
      default:
        return op.kind
    }
  }
}

function listed(files: string[]): string {
  return files.length <= 5 ? files.join(', ') : `${files.slice(0, 5).join(', ')} and ${files.length - 5} more`
}

/** The start of a comment, on one line. */
function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 60 ? `"${flat.slice(0, 59)}…"` : `"${flat}"`
}
