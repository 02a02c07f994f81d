import type { ContentChange } from '../../content'
import type { EntryUpdate } from './pushed-entries'
import type { ReviewPayloadOf } from './review-op-types'

/** Every operation Quire sends that changes something on the service. */
export type OutboxKind = 'create-cr' | 'update-cr' | 'content' | 'comment' | 'reply' | 'resolve' | 'merge' | 'update-from-main' | keyof ReviewPayloadOf

/**
 * `pending`: written, not sent. `sending`: sent (or about to be) with no recorded answer: it is
 * reconciled with the service before it is ever sent again. `done`/`failed`: answered. `superseded`:
 * its change request was merged or closed before it went out; the planner puts its changes in the next one.
 * `split`: a batch the service refused; its changes were written again one per op, so one bad change
 * does not hold back the others (or in halves, after a 413). Also a batch not sent because a file it
 * uploads changed since the plan: its changes are left to the next plan. `set-aside`: its stored JSON
 * could not be read (a damaged cache): never sent, kept and reported (outbox-repository.ts `decode`).
 */
export type OutboxState = 'pending' | 'sending' | 'done' | 'failed' | 'superseded' | 'split' | 'set-aside'

export interface CreateChangeRequestPayload {
  subject: string
  userId: string
}

export interface UpdateChangeRequestPayload {
  subject: string
}

export interface ContentPayload {
  changes: ContentChange[]
  /** Pushed-entry updates that hold once the batch is applied. */
  entries: EntryUpdate[]
  /** The same, change by change (to split a refused batch). */
  perChange?: EntryUpdate[][]
  /** Planner keys of the changes (a refused batch blocks exactly these until their files change). */
  keys: string[]
  /** Refs of pages and files the batch creates. */
  defines: string[]
  /**
   * Files the batch uploads, by reference: their `insert_files` entries hold `@file:<path>` instead of
   * bytes, read (and checked against `hash`) when the batch is sent. Ops written before references
   * hold the base64 bytes inline and have none.
   */
  files?: FileReference[]
  /** Absolute path of the space folder the references' paths are relative to. */
  folder?: string
}

/** A file to upload as it was when the push was planned. */
export interface FileReference {
  /** Relative to the space folder, `/`-separated. */
  path: string
  /** Git blob id of the bytes planned. */
  hash: string
  /** Bytes (-1: the file was gone when the plan was written). */
  size: number
}

/** A comment or reply typed as a marker in a page: the file loses the marker once it is posted. */
export interface MarkerOrigin {
  path: string
  source: string
}

export interface CommentPayload {
  pageId: string
  text: string
  target: 'space' | 'change-request'
  userId: string
  marker?: MarkerOrigin
}

export interface ReplyPayload {
  commentId: string
  text: string
  /** The thread's change request, when it is a change request comment. */
  changeRequestId?: string
  userId: string
  marker?: MarkerOrigin
}

export interface ResolvePayload {
  commentId: string
  changeRequestId?: string
  marker?: MarkerOrigin
}

export interface MergePayload {
  changeRequestId: string
}

/** "Update from main": the change request takes in what main gained since its base. */
export interface UpdateFromMainPayload {
  changeRequestId: string
}

export interface PayloadOf extends ReviewPayloadOf {
  'create-cr': CreateChangeRequestPayload
  'update-cr': UpdateChangeRequestPayload
  content: ContentPayload
  comment: CommentPayload
  reply: ReplyPayload
  resolve: ResolvePayload
  merge: MergePayload
  'update-from-main': UpdateFromMainPayload
}

export type OutboxOp = {
  [K in OutboxKind]: {
    seq: number
    spaceId: string
    generation: number
    kind: K
    key: string
    payload: PayloadOf[K]
    state: OutboxState
    attempts: number
    result?: unknown
    lastError?: string
    /** What was known when it was sent (e.g. the change request's head), for reconciling. */
    sentContext?: unknown
    createdAt: string
    sentAt?: string
  }
}[OutboxKind]

export interface NewOutboxOp<K extends OutboxKind = OutboxKind> {
  spaceId: string
  generation: number
  kind: K
  key: string
  payload: PayloadOf[K]
}
