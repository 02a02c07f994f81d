import type Database from 'better-sqlite3'
import { StatementCache } from '../cache/statement-cache'
import { threadOpKey, type Ask } from './action-keys'
import type { EntryUpdate, OpenConflict, PushedEntry } from './pushed-entries'
import type { NewOutboxOp, OutboxOp } from './outbox-types'
import { BadRowError, entryOf, opOf, parsedOrUndefined, sessionOf, type Row } from './outbox-rows'

/**
 * Every SQL statement of sync up: the outbox, the writer's change request per space (push sessions),
 * what that change request carries (pushed entries), conflicts, and the mirror of change requests.
 */

const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v))

export interface PushSession {
  spaceId: string
  /** Counts the writer's change requests in this space: ops and entries belong to one generation. */
  generation: number
  userId: string
  changeRequestId?: string
  number?: number
  headRevision?: string
  subject?: string
  titles: string[]
  openedAt: string
}

export interface ConflictRow extends OpenConflict {
  spaceId: string
  localText: string
  remoteOid: string
  /** `pending`: recorded, copy and restore not yet done; `open`: on disk, waiting for the writer. */
  state: 'pending' | 'open'
  detectedAt: string
}

export interface ChangeRequestRow {
  id: string
  spaceId: string
  number: number
  status: string
  subject?: string
  /** The change request as the service last returned it. */
  data: Record<string, unknown>
}

/**
 * Who may send the outbox: the holder of the workspace lease (engine/cache/workspace-lease.ts,
 * `WorkspaceLease.outboxClaim()`). Several processes may open one cache; only the holder claims ops.
 */
export interface OutboxClaim {
  readonly ownerId: string
  /** The lease's connection: it must be the outbox's own, so the check runs in the claim's transaction. */
  readonly database: Database.Database
  /** Whether `ownerId` holds the lease at this moment. */
  holds(): boolean
}

/** This process does not (or no longer) hold the workspace lease: another process sends the outbox. */
export class ClaimLostError extends Error {
  constructor() {
    super('another Quire process holds this workspace now and sends its outbox')
  }
}

export class OutboxRepository {
  private readonly statements: StatementCache
  /** Spaces whose thread ops were given today's keys (`rekeyThreadOps`). */
  private readonly rekeyed = new Set<string>()

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => string = () => new Date().toISOString(),
    /** Without a claim (a single process, as the CLI was), `claimNext` is `next` and nothing is checked. */
    private readonly claim?: OutboxClaim,
  ) {
    if (claim && claim.database !== db) throw new Error('the outbox claim must come from a lease on the same database connection')
    this.statements = new StatementCache(db)
  }

  private statement(sql: string): Database.Statement {
    return this.statements.statement(sql)
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)()
  }

  /* The outbox */

  /** Writes an operation; one whose key is already there (sent or not) is not written twice. Answers its seq. */
  enqueue(op: NewOutboxOp): { seq: number; created: boolean } {
    const inserted = this.statement(
      `INSERT INTO outbox (space_id, generation, kind, op_key, payload, state, created_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)
       ON CONFLICT(op_key) DO NOTHING`,
    ).run(op.spaceId, op.generation, op.kind, op.key, JSON.stringify(op.payload), this.now())
    if (inserted.changes > 0) return { seq: Number(inserted.lastInsertRowid), created: true }
    const row = this.statement('SELECT seq FROM outbox WHERE op_key = ?').get(op.key) as Row
    return { seq: Number(row.seq), created: false }
  }

  op(seq: number): OutboxOp | undefined {
    const row = this.statement('SELECT * FROM outbox WHERE seq = ?').get(seq) as Row | undefined
    return row && this.decode(row)
  }

  byKey(key: string): OutboxOp | undefined {
    const row = this.statement('SELECT * FROM outbox WHERE op_key = ?').get(key) as Row | undefined
    return row && this.decode(row)
  }

  /** The oldest operation of the space still to send or to reconcile. */
  next(spaceId: string): OutboxOp | undefined {
    // A row that cannot be read is set aside by `decode` (no longer pending): the next one is looked at.
    for (;;) {
      const row = this.statement("SELECT * FROM outbox WHERE space_id = ? AND state IN ('pending', 'sending') ORDER BY seq LIMIT 1").get(spaceId) as Row | undefined
      if (!row) return undefined
      const op = this.decode(row)
      if (op) return op
    }
  }

  /**
   * `next`, claimed for the lease holder: the lease is checked and the op marked as this owner's in one
   * IMMEDIATE transaction, so of two processes that both believe they hold the lease only the one that
   * does can claim. Throws ClaimLostError when this process does not hold it.
   */
  claimNext(spaceId: string): OutboxOp | undefined {
    const claim = this.claim
    if (!claim) return this.next(spaceId)
    return this.db
      .transaction(() => {
        if (!claim.holds()) throw new ClaimLostError()
        const op = this.next(spaceId)
        if (op) this.statement('UPDATE outbox SET claimed_by = ?, claimed_at = ? WHERE seq = ?').run(claim.ownerId, this.now(), op.seq)
        return op
      })
      .immediate()
  }

  /** Which lease owner last claimed an op (undefined: never claimed, or sent without a lease). */
  claimedBy(seq: number): string | undefined {
    return str((this.statement('SELECT claimed_by FROM outbox WHERE seq = ?').get(seq) as Row | undefined)?.claimed_by)
  }

  /**
   * What the space's outbox, push session, change request entries and conflicts hold, in one short string
   * that differs whenever any of them changed: an op added or moved to another state, a new session or
   * change request, an entry or conflict added or removed (push/space-pusher.ts skips a plan it made before on the same).
   */
  fingerprint(spaceId: string): string {
    const ops = this.statement('SELECT state, COUNT(*) AS n, MAX(seq) AS last, MAX(attempts) AS tries FROM outbox WHERE space_id = ? GROUP BY state ORDER BY state').all(spaceId) as Row[]
    const session = this.statement('SELECT generation, change_request_id, head_revision FROM push_sessions WHERE space_id = ?').get(spaceId) as Row | undefined
    const entries = this.statement('SELECT COUNT(*) AS n, MAX(op_seq) AS last FROM pushed_entries WHERE space_id = ?').get(spaceId) as Row
    const conflicts = this.statement('SELECT COUNT(*) AS n FROM conflicts WHERE space_id = ?').get(spaceId) as Row
    return JSON.stringify([ops.map((r) => [r.state, r.n, r.last, r.tries]), session && [session.generation, session.change_request_id, session.head_revision], [entries.n, entries.last], conflicts.n])
  }

  unfinished(spaceId?: string): OutboxOp[] {
    const rows = spaceId
      ? (this.statement("SELECT * FROM outbox WHERE space_id = ? AND state IN ('pending', 'sending') ORDER BY seq").all(spaceId) as Row[])
      : (this.statement("SELECT * FROM outbox WHERE state IN ('pending', 'sending') ORDER BY seq").all() as Row[])
    return this.decodeAll(rows)
  }

  ops(spaceId: string, limit = 100): OutboxOp[] {
    return (this.statement('SELECT * FROM outbox WHERE space_id = ? ORDER BY seq DESC LIMIT ?').all(spaceId, limit) as Row[]).flatMap((row) => this.decode(row) ?? [])
  }

  /** Recorded BEFORE the request leaves: after a crash, `sending` means "ask the service first". */
  /**
   * With a claim, only while this process holds the lease and the op is still its claim (the last check
   * before the request leaves): throws ClaimLostError otherwise.
   */
  markSending(seq: number, context?: unknown) {
    const mark = this.statement(
      `UPDATE outbox SET state = 'sending', attempts = attempts + 1, sent_at = ?, sent_context = ? WHERE seq = ?${this.claim ? ' AND claimed_by = ?' : ''}`,
    )
    const args = [this.now(), context === undefined ? null : JSON.stringify(context), seq]
    const claim = this.claim
    if (!claim) {
      mark.run(...args)
      return
    }
    this.db
      .transaction(() => {
        if (!claim.holds() || mark.run(...args, claim.ownerId).changes !== 1) throw new ClaimLostError()
      })
      .immediate()
  }

  /** A batch rebuilt before it is sent again (outbox/batch-rebuild.ts): its payload is replaced, its state kept. */
  rewritePayload(seq: number, payload: unknown) {
    this.statement('UPDATE outbox SET payload = ? WHERE seq = ?').run(JSON.stringify(payload), seq)
  }

  /** The request certainly did not reach the service (refused connection, 429): it is sent as new. */
  markPending(seq: number, error: string) {
    this.statement("UPDATE outbox SET state = 'pending', last_error = ? WHERE seq = ?").run(error, seq)
  }

  /** The answer is unknown (timeout, reset, 5xx): stays `sending`, so the next attempt reconciles first. */
  noteError(seq: number, error: string) {
    this.statement('UPDATE outbox SET last_error = ? WHERE seq = ?').run(error, seq)
  }

  markDone(seq: number, result: unknown) {
    this.statement("UPDATE outbox SET state = 'done', result = ?, last_error = NULL, finished_at = ? WHERE seq = ?").run(JSON.stringify(result ?? null), this.now(), seq)
  }

  markSplit(seq: number, error: string) {
    this.statement("UPDATE outbox SET state = 'split', last_error = ?, finished_at = ? WHERE seq = ?").run(error, this.now(), seq)
  }

  markFailed(seq: number, error: string) {
    this.statement("UPDATE outbox SET state = 'failed', last_error = ?, finished_at = ? WHERE seq = ?").run(error, this.now(), seq)
  }

  /** Operations bound to a change request that is merged or closed; comments stand on their own. */
  supersede(spaceId: string, generation: number): number {
    return this.statement(
      `UPDATE outbox SET state = 'superseded', finished_at = ? WHERE space_id = ? AND generation = ?
         AND state IN ('pending', 'sending') AND kind IN ('create-cr', 'update-cr', 'content', 'merge')`,
    ).run(this.now(), spaceId, generation).changes
  }

  /** Keys of comment markers that are posted or on their way. */
  markerKeys(spaceId: string): Set<string> {
    this.rekeyThreadOps(spaceId)
    const rows = this.statement("SELECT op_key FROM outbox WHERE space_id = ? AND op_key LIKE 'marker:%' AND state IN ('pending', 'sending', 'done')").all(spaceId) as Row[]
    return new Set(rows.map((r) => String(r.op_key)))
  }

  /**
   * Comment, reply and resolve ops written before their keys held the writer (and a reply's its thread
   * rather than the page it was typed in) take today's key (outbox/action-keys.ts), so a marker or a
   * command with the same text still finds them. Once per space and connection; an op whose new key is
   * already taken keeps its old one.
   */
  rekeyThreadOps(spaceId: string) {
    if (this.rekeyed.has(spaceId)) return
    this.rekeyed.add(spaceId)
    const rows = this.statement(
      "SELECT seq, kind, op_key, payload FROM outbox WHERE space_id = ? AND op_key LIKE 'marker:%' AND kind IN ('comment', 'reply', 'resolve')",
    ).all(spaceId) as Row[]
    const rekey = this.statement('UPDATE outbox SET op_key = ? WHERE seq = ? AND NOT EXISTS (SELECT 1 FROM outbox WHERE op_key = ?)')
    this.transaction(() => {
      for (const row of rows) {
        const key = String(row.op_key)
        if (key.includes('+')) continue // a repeat asked after the first was answered: keyed after it
        const current = threadOpKey({ spaceId, kind: String(row.kind), payload: JSON.parse(String(row.payload)) } as Ask)
        if (current && current !== key) rekey.run(current, Number(row.seq), current)
      }
    })
  }

  /** Planner keys of changes in batches the service refused. */
  refusedKeys(spaceId: string): Set<string> {
    const rows = this.statement("SELECT payload FROM outbox WHERE space_id = ? AND kind = 'content' AND state = 'failed'").all(spaceId) as Row[]
    const keys = new Set<string>()
    for (const row of rows) for (const key of (parsedOrUndefined(row.payload) as { keys?: string[] } | undefined)?.keys ?? []) keys.add(key)
    return keys
  }

  /**
   * Content batches the service refused whose every file a later batch has now carried: the writer saved
   * those files again and the new version went through, so the refusal is over.
   */
  retireRefusals(spaceId: string, carried: ReadonlySet<string>) {
    const rows = this.statement("SELECT seq, payload FROM outbox WHERE space_id = ? AND kind = 'content' AND state = 'failed'").all(spaceId) as Row[]
    const retire = this.statement("UPDATE outbox SET state = 'superseded', finished_at = ? WHERE seq = ?")
    for (const row of rows) {
      const paths = ((parsedOrUndefined(row.payload) as { entries?: Array<{ path: string }> } | undefined)?.entries ?? []).map((e) => e.path)
      if (paths.length > 0 && paths.every((p) => carried.has(p))) retire.run(this.now(), Number(row.seq))
    }
  }

  /**
   * Refused edits the writer still has to act on (saving the file again): content batches of the current
   * change request's generation. A refused comment or merge was answered to whoever asked for it.
   */
  openRefusals(spaceId: string, limit = 5): OutboxOp[] {
    const session = this.session(spaceId)
    if (!session) return []
    return (
      this.statement("SELECT * FROM outbox WHERE space_id = ? AND generation = ? AND kind = 'content' AND state = 'failed' ORDER BY seq DESC LIMIT ?").all(spaceId, session.generation, limit) as Row[]
    ).flatMap((row) => this.decode(row) ?? [])
  }

  failures(spaceId: string, limit = 20): OutboxOp[] {
    return (this.statement("SELECT * FROM outbox WHERE space_id = ? AND state = 'failed' ORDER BY seq DESC LIMIT ?").all(spaceId, limit) as Row[]).flatMap((row) => this.decode(row) ?? [])
  }

  /**
   * Rows whose stored JSON could not be read (a damaged cache, a hand edit): set aside, never sent, kept
   * for the writer to see (`quire status`, `quire doctor`). Read without decoding what is damaged.
   */
  setAside(spaceId?: string): Array<{ seq: number; spaceId: string; kind: string; error: string }> {
    const rows = (spaceId
      ? this.statement("SELECT seq, space_id, kind, last_error FROM outbox WHERE space_id = ? AND state = 'set-aside' ORDER BY seq").all(spaceId)
      : this.statement("SELECT seq, space_id, kind, last_error FROM outbox WHERE state = 'set-aside' ORDER BY seq").all()) as Row[]
    return rows.map((row) => ({ seq: Number(row.seq), spaceId: String(row.space_id), kind: String(row.kind), error: String(row.last_error ?? '') }))
  }

  /** Rows still in play whose stored JSON cannot be read, found without changing them (quire doctor). */
  unreadable(): Array<{ seq: number; spaceId: string; kind: string; error: string }> {
    const out: Array<{ seq: number; spaceId: string; kind: string; error: string }> = []
    for (const row of this.statement("SELECT * FROM outbox WHERE state != 'set-aside'").all() as Row[]) {
      try {
        opOf(row)
      } catch (error) {
        out.push({ seq: Number(row.seq), spaceId: String(row.space_id), kind: String(row.kind), error: unreadableReason(error) })
      }
    }
    return out
  }

  /** Sets aside every row `unreadable` finds (quire doctor --repair); answers how many. */
  setAsideUnreadable(): number {
    const rows = this.unreadable()
    for (const row of rows) this.decode(this.statement('SELECT * FROM outbox WHERE seq = ?').get(row.seq) as Row)
    return rows.length
  }

  private decodeAll(rows: Row[]): OutboxOp[] {
    return rows.flatMap((row) => this.decode(row) ?? [])
  }

  /**
   * An op from its row; a row whose JSON cannot be read is set aside (state `set-aside`, the reason in
   * `last_error`) and what the change request was to carry from it is dropped, so one bad row never
   * stops the outbox: the rest is sent, and the planner plans those files again.
   */
  private decode(row: Row): OutboxOp | undefined {
    try {
      return opOf(row)
    } catch (error) {
      const reason = `set aside: ${unreadableReason(error)}`
      this.transaction(() => {
        this.statement("UPDATE outbox SET state = 'set-aside', last_error = ?, finished_at = ? WHERE seq = ?").run(reason, this.now(), Number(row.seq))
        this.dropEntriesOf(String(row.space_id), Number(row.seq))
      })
      return undefined
    }
  }

  /* Push sessions: the writer's change request per space */

  session(spaceId: string): PushSession | undefined {
    const row = this.statement('SELECT * FROM push_sessions WHERE space_id = ?').get(spaceId) as Row | undefined
    return row && sessionOf(row)
  }

  /** The current session, created (generation 1) on first use. */
  ensureSession(spaceId: string, userId: string): PushSession {
    this.statement('INSERT INTO push_sessions (space_id, generation, user_id, opened_at) VALUES (?, 1, ?, ?) ON CONFLICT(space_id) DO NOTHING').run(spaceId, userId, this.now())
    return this.session(spaceId)!
  }

  setChangeRequest(spaceId: string, generation: number, cr: { id: string; number: number; headRevision?: string }) {
    this.statement('UPDATE push_sessions SET change_request_id = ?, number = ?, head_revision = COALESCE(?, head_revision) WHERE space_id = ? AND generation = ?').run(cr.id, cr.number, cr.headRevision ?? null, spaceId, generation)
  }

  setHead(spaceId: string, generation: number, headRevision: string) {
    this.statement('UPDATE push_sessions SET head_revision = ? WHERE space_id = ? AND generation = ?').run(headRevision, spaceId, generation)
  }

  setSubject(spaceId: string, generation: number, subject: string, titles: string[]) {
    this.statement('UPDATE push_sessions SET subject = ?, titles = ? WHERE space_id = ? AND generation = ?').run(subject, JSON.stringify(titles), spaceId, generation)
  }

  /** The change request was merged or closed: the next edit starts a new one. */
  closeSession(spaceId: string, generation: number) {
    this.transaction(() => {
      this.statement(
        `UPDATE push_sessions SET generation = generation + 1, change_request_id = NULL, number = NULL, head_revision = NULL,
           subject = NULL, titles = '[]', opened_at = ? WHERE space_id = ? AND generation = ?`,
      ).run(this.now(), spaceId, generation)
      this.statement('DELETE FROM pushed_entries WHERE space_id = ? AND generation <= ?').run(spaceId, generation)
    })
  }

  /* Pushed entries */

  entries(spaceId: string): PushedEntry[] {
    return (this.statement('SELECT * FROM pushed_entries WHERE space_id = ? ORDER BY path').all(spaceId) as Row[]).map(entryOf)
  }

  /** Entries of the change request, with the outbox op that carries each. */
  entryRows(spaceId: string): Array<PushedEntry & { opSeq: number; generation: number }> {
    return (this.statement('SELECT * FROM pushed_entries WHERE space_id = ? ORDER BY path').all(spaceId) as Row[]).map((row) => ({
      ...entryOf(row),
      opSeq: Number(row.op_seq),
      generation: Number(row.generation),
    }))
  }

  applyEntries(spaceId: string, generation: number, opSeq: number, updates: readonly EntryUpdate[]) {
    const set = this.statement(
      `INSERT INTO pushed_entries (space_id, path, kind, page_id, ref, hash, state, generation, op_seq)
       VALUES (@spaceId, @path, @kind, @pageId, @ref, @hash, @state, @generation, @opSeq)
       ON CONFLICT(space_id, path) DO UPDATE SET kind = excluded.kind, page_id = COALESCE(excluded.page_id, pushed_entries.page_id),
         ref = COALESCE(excluded.ref, pushed_entries.ref), hash = excluded.hash, state = excluded.state,
         generation = excluded.generation, op_seq = excluded.op_seq`,
    )
    const remove = this.statement('DELETE FROM pushed_entries WHERE space_id = ? AND path = ?')
    this.transaction(() => {
      for (const u of updates) {
        if (u.op === 'remove') remove.run(spaceId, u.path)
        else set.run({ spaceId, path: u.path, kind: u.kind, pageId: u.pageId ?? null, ref: u.ref ?? null, hash: u.hash, state: u.state, generation, opSeq })
      }
    })
  }

  /** Ids the service gave to pages and files created by ref. */
  resolveRefs(spaceId: string, ids: ReadonlyMap<string, string>) {
    const update = this.statement('UPDATE pushed_entries SET page_id = ? WHERE space_id = ? AND ref = ?')
    this.transaction(() => {
      for (const [ref, id] of ids) update.run(id, spaceId, ref)
    })
  }

  idOfRef(spaceId: string, ref: string): string | undefined {
    return str((this.statement('SELECT page_id FROM pushed_entries WHERE space_id = ? AND ref = ? AND page_id IS NOT NULL').get(spaceId, ref) as Row | undefined)?.page_id)
  }

  /** A batch the service refused: what it would have carried is not carried. */
  dropEntriesOf(spaceId: string, opSeq: number) {
    this.statement('DELETE FROM pushed_entries WHERE space_id = ? AND op_seq = ?').run(spaceId, opSeq)
  }

  /* Conflicts */

  addConflict(c: Omit<ConflictRow, 'detectedAt' | 'state'>, state: ConflictRow['state'] = 'pending') {
    this.statement(
      `INSERT INTO conflicts (space_id, copy_path, path, page_id, local_text, remote_oid, state, detected_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(space_id, copy_path) DO NOTHING`,
    ).run(c.spaceId, c.copyPath, c.path, c.pageId, c.localText, c.remoteOid, state, this.now())
  }

  conflicts(spaceId?: string): ConflictRow[] {
    const rows = spaceId
      ? (this.statement('SELECT * FROM conflicts WHERE space_id = ? ORDER BY detected_at, copy_path').all(spaceId) as Row[])
      : (this.statement('SELECT * FROM conflicts ORDER BY space_id, detected_at, copy_path').all() as Row[])
    return rows.map((row) => ({
      spaceId: String(row.space_id),
      copyPath: String(row.copy_path),
      path: String(row.path),
      pageId: String(row.page_id),
      localText: String(row.local_text),
      remoteOid: String(row.remote_oid),
      state: String(row.state) as ConflictRow['state'],
      detectedAt: String(row.detected_at),
    }))
  }

  openConflict(spaceId: string, copyPath: string) {
    this.statement("UPDATE conflicts SET state = 'open' WHERE space_id = ? AND copy_path = ?").run(spaceId, copyPath)
  }

  removeConflict(spaceId: string, copyPath: string) {
    this.statement('DELETE FROM conflicts WHERE space_id = ? AND copy_path = ?').run(spaceId, copyPath)
  }

  /* The mirror of change requests (for `quire cr list` offline) */

  saveChangeRequest(spaceId: string, cr: { id: string; number: number; status: string; subject?: string }) {
    this.statement(
      `INSERT INTO change_requests (id, space_id, number, status, subject, data) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET number = excluded.number, status = excluded.status, subject = excluded.subject, data = excluded.data`,
    ).run(cr.id, spaceId, cr.number, cr.status, cr.subject ?? null, JSON.stringify(cr))
  }

  changeRequests(spaceId?: string): ChangeRequestRow[] {
    const rows = spaceId
      ? (this.statement('SELECT * FROM change_requests WHERE space_id = ? ORDER BY number DESC').all(spaceId) as Row[])
      : (this.statement('SELECT * FROM change_requests ORDER BY space_id, number DESC').all() as Row[])
    return rows.map((row) => ({
      id: String(row.id),
      spaceId: String(row.space_id),
      number: Number(row.number),
      status: String(row.status),
      subject: str(row.subject),
      data: (parsedOrUndefined(row.data) ?? {}) as Record<string, unknown>,
    }))
  }

  changeRequest(id: string): ChangeRequestRow | undefined {
    return this.changeRequests().find((cr) => cr.id === id)
  }
}

function unreadableReason(error: unknown): string {
  return `its stored ${error instanceof BadRowError ? error.field : 'data'} cannot be read (${error instanceof Error ? error.message : String(error)})`
}
