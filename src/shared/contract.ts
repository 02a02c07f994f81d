/**
 * The one contract for everything that crosses from the main process (or the headless bridge) to the
 * renderer: request channels with their argument and result types, and the events pushed back.
 * Shared by src/main (IPC handlers), src/preload (contextBridge API), src/renderer and the headless HTTP
 * bridge (`quire serve`), so the renderer cannot tell which one it talks to. Plain JSON types only.
 */

import type { SpaceStateKind } from './space-state'

/** A space's state: the engine's one vocabulary (src/shared/space-state.ts). */
export type SpaceState = SpaceStateKind
/** Tray/overall state: the worst space decides (signed out when there is no session). */
export type OverallState = SpaceStateKind

export interface SessionInfo {
  signedIn: boolean
  endpoint?: string
  user?: { id: string; displayName: string; email?: string }
  /** True when signed in to the embedded local service. */
  demo: boolean
  /** On the demo service: whom the user plays, its owner (the writer) or its reviewer (`useDemoServiceAs`). */
  demoAs?: DemoRole
  /** Set while the service rejects the saved token (HTTP 401): the desktop app notifies, the UI asks to sign in again. */
  authError?: string
}

/** The two people of the demo service: its owner, who writes, and Ada Reviewer, who reviews. */
export type DemoRole = 'writer' | 'reviewer'

export interface SpaceNode {
  id: string
  title: string
  emoji?: string
  /** Chosen by itself (the Spaces screen's own checkbox). */
  selected: boolean
  /** Synced: chosen by itself, or through its organization or collection. */
  synced: boolean
  state: SpaceState
  revision?: string
  pageCount?: number
  lastSyncAt?: string
  lastError?: string
  /** 0..1 while a pass runs. */
  progress?: number
  /** Steps done and planned while the state is `syncing` (absent while the pass is still planning). */
  syncDone?: number
  syncTotal?: number
  /** Why the space is offline, in error or signed out, in plain words (no state prefix). */
  reason?: string
  /** Changes waiting to be sent (edits, comments, reviews): while pending, and while offline or paused. */
  pending?: number
  /** Files to look at while the state is `conflict`. */
  conflictFiles?: string[]
  folder?: string
  appUrl?: string
}

export interface CollectionNode {
  id: string
  title: string
  selected: boolean
  collections: CollectionNode[]
  spaces: SpaceNode[]
}

export interface OrganizationNode {
  id: string
  title: string
  selected: boolean
  collections: CollectionNode[]
  /** Spaces outside any collection. */
  spaces: SpaceNode[]
}

export interface StatusSnapshot {
  overall: OverallState
  paused: boolean
  spaces: SpaceNode[]
  brokenLinks: number
  /** Open conflicts whose conflicted copy is still on disk: the list clears as the copies go. */
  conflicts: ConflictEntry[]
  /** Change requests waiting for the signed-in user's review (as last read; absent before the first read). */
  forReview?: number
  updatedAt: string
}

/**
 * A page both the writer and main changed in the same place. The file holds main's version (theirs);
 * the conflicted copy beside it holds the writer's own version (mine).
 */
export interface ConflictEntry {
  spaceId: string
  spaceTitle?: string
  pageId?: string
  pageTitle?: string
  /** Both relative to the space folder, with forward slashes. */
  path: string
  copyPath: string
  /** Absolute paths, for Open (absent when the space folder is not on disk). */
  file?: string
  copyFile?: string
  detectedAt?: string
}

/** The two sides of a conflict as text, for Compare. */
export interface ConflictComparison extends ConflictEntry {
  /** Main's version: what the file holds now. */
  theirs: string
  /** The writer's version: what the conflicted copy holds. */
  mine: string
}

/** One page a change request changes, with its text on main and in the change request. */
export interface ChangeRequestPageChange {
  pageId: string
  title: string
  path?: string
  /** `moved`: renamed or moved (its path changed), text unchanged; an edited page may have moved too (`fromPath`). */
  change: 'added' | 'edited' | 'removed' | 'moved'
  /** The page's path on main when the change request renames or moves it. */
  fromPath?: string
  /** Markdown on main (empty when added) and in the change request (empty when removed). */
  before: string
  after: string
  /** The front matter keys (description, icon, hidden, cover…) the change request sets, changes or removes. */
  frontMatter?: FrontMatterChange[]
}

/** One front matter key of a page, as YAML text on each side (absent on the side that lacks it). */
export interface FrontMatterChange {
  key: string
  before?: string
  after?: string
}

/** A file (an image, an attachment) the change request adds, removes or replaces. */
export interface ChangeRequestFileChange {
  id: string
  name: string
  change: 'added' | 'removed' | 'edited'
  contentType?: string
  /** Its path in the space folder (`.gitbook/assets/...`), when known. */
  path?: string
  /** An image added or replaced, as a `data:` URL (kept with the diff, so it shows offline too). */
  preview?: string
}

/**
 * A page's preview as the service would show it: HTML as a sanitized tree (hast: elements and text, no
 * script, no handler, images as `data:` addresses), made by the engine (engine/preview) and turned into
 * elements by the renderer (never innerHTML).
 */
export interface PagePreview {
  spaceId: string
  /** The page's file in its space folder (forward slashes). */
  path: string
  title?: string
  tree: PreviewRoot
}

export interface PreviewRoot {
  type: 'root'
  children: PreviewNode[]
}
export type PreviewNode = PreviewElement | { type: 'text'; value: string }
export interface PreviewElement {
  type: 'element'
  tagName: string
  properties: Record<string, string | number | boolean | null | undefined | Array<string | number>>
  children: PreviewNode[]
}

/** How a file was opened: in a named editor (at its line), or by the system's default application (which is not told the line). */
export type OpenedFile = { editor: string; defaultApp?: undefined } | { editor?: undefined; defaultApp: true }

export interface ChangeRequestChanges {
  pages: ChangeRequestPageChange[]
  files: ChangeRequestFileChange[]
  /** The table of contents (SUMMARY.md, as Git Sync writes it) on main and in the change request, when the order, nesting or titles differ. */
  summary?: { before: string; after: string }
  /** Comment threads on the change request. */
  comments: number
  /** The change request's revision these changes were read at. */
  revision?: string
  /** Set when the service could not be reached: the changes as last read at this time. */
  asOf?: string
}

/** Update from main's answer: the change request after it, and whether main and it changed the same places. */
export interface ChangeRequestUpdate extends ChangeRequestSummary {
  conflicts: boolean
}

export interface ChangeRequestSummary {
  id: string
  spaceId: string
  spaceTitle: string
  number: number
  subject: string
  status: string
  outdated: boolean
  mine: boolean
  createdBy: string
  updatedAt: string
  appUrl?: string
  canMerge: boolean
  /** Its current revision: a new one means new edits (an open diff reads them). */
  revision?: string
  /** Set when the service could not be reached: the change request as last seen at this time. */
  asOf?: string
  /** Set while an action on it (merge, update from main) waits in the outbox to be sent. */
  waiting?: string
  /** The action was asked before: the same one already waits in the outbox (`queued`) or was `sent`; nothing new went out. */
  repeat?: ActionRepeat
}

export interface CommentThread {
  id: string
  pageId?: string
  pageTitle?: string
  author: string
  postedAt: string
  markdown: string
  resolved: boolean
  /** Posted by the signed-in user (replies likewise): new replies to these are notified. Absent: compared by name. */
  mine?: boolean
  replies: Array<{ id: string; author: string; postedAt: string; markdown: string; mine?: boolean }>
  /** Set when the service could not be reached: the thread as last seen at this time. */
  asOf?: string
  /** Set while the comment (or a reply or resolve of it) waits in the outbox to be sent: why it waits. */
  waiting?: string
  /** The same comment (reply, resolve) was asked before: it already waits in the outbox (`queued`) or was `sent`. */
  repeat?: ActionRepeat
}

/** A review given on a change request: an event of its discussion, not a comment thread. */
export interface ReviewEvent {
  id: string
  reviewer: string
  verdict: ReviewVerdict
  at: string
  /** Given on an older revision: the change request was edited since. */
  outdated: boolean
  comment?: string
}

/** What a reviewer reads at a change request: its description, its comment threads, its reviews. */
export interface ChangeRequestDiscussion {
  /** Markdown ('' when it has none). */
  description: string
  /** The signed-in user wrote the change request: they may edit its description. */
  canEditDescription: boolean
  /** Comment threads with their replies (a review's own comment is with its review instead). */
  threads: CommentThread[]
  reviews: ReviewEvent[]
  /** Set when the service could not be reached: the discussion as last read at this time (no reviews). */
  asOf?: string
}

/** An action asked again is the same operation (its key is what it is): it was already queued, or already sent. */
export type ActionRepeat = 'queued' | 'sent'

export interface BrokenLink {
  spaceId: string
  spaceTitle: string
  pageId?: string
  pageTitle: string
  target: string
  /** Absolute path of the local file that holds the link, when known. */
  file?: string
  /** The same file relative to its space folder (forward slashes): what the report shows. */
  path?: string
  line?: number
  /** `local`: found by the link pre-flight in the file as it is now, not yet in the service's report. */
  source?: 'service' | 'local'
  /** Why the pre-flight finds it broken (`no page at guide/setup.md`). */
  reason?: string
}

export interface PageSummary {
  id: string
  title: string
  /** Path of the page's file inside the space folder (Git Sync layout), when it has one. */
  path?: string
  /** How deep in the space's tree (0: top level); pages come in tree order. */
  depth?: number
}

export interface ActivityEntry {
  at: string
  level: 'info' | 'warning' | 'error'
  message: string
  spaceId?: string
}

export interface Settings {
  workspace: string
  intervalSeconds: number
  paused: boolean
  startAtLogin: boolean
  notifications: boolean
}

/** A reviewer's answer on a change request. */
export type ReviewVerdict = 'approved' | 'changes-requested'

/** One person's part in a change request's review: asked or not, and their latest verdict. */
export interface ReviewerEntry {
  userId: string
  name: string
  /** Asked for a review (asked reviewers stay listed after they review). */
  requested: boolean
  verdict?: ReviewVerdict
  /** The verdict was given on an older revision: an edit came since. */
  outdated?: boolean
  reviewedAt?: string
  comment?: string
}

/** Someone who may be asked for a review in a space (review role or above). */
export interface ReviewerCandidate {
  userId: string
  name: string
  role: string
}

/** One merge rule of the space (or its organization) as it stands for a change request now. */
export interface MergeRuleState {
  /** What the rule asks, in words ("An approving review from Rae Reviewer"). */
  asks: string
  met: boolean
  /** Why it is not met ("it needs an approving review from Rae Reviewer"). */
  reason?: string
}

/** Whether the signed-in user may merge a change request now, and why not. */
export interface MergeCheck {
  /** False when the space (or its organization) sets no merge rules: it merges without review. */
  ruled: boolean
  rules: MergeRuleState[]
  /** The user is allowed to bypass the rules. */
  bypass: boolean
  /** Why a merge is refused now; empty when it may be merged. */
  blockers: string[]
  /** What a merge would skip though no rule stops it: a draft, a review asked and not given, changes asked for. */
  cautions: string[]
}

/** A change request that waits for the signed-in user's review. */
export interface ForReviewItem {
  spaceId: string
  spaceTitle: string
  /** The change request's id. */
  id: string
  number: number
  subject: string
  status: string
  /** Who wrote the change request. */
  author: string
  /** Who asked the user for this review (the author, or someone else: a maintainer, say). */
  requestedBy?: string
  updatedAt: string
  url: string
  /** The user's own earlier review, now outdated by an edit; absent when they never reviewed it. */
  myReview?: { verdict: ReviewVerdict; reviewedAt: string }
}

export interface ForReviewList {
  items: ForReviewItem[]
  /** Set when the service could not be reached: the list as last read at this time. */
  asOf?: string
}

/** News of the review workflow, which the desktop shell shows as a notification (the browser as a toast). */
export interface ReviewNews {
  kind: 'review-requested' | 'review-received'
  /** Stable identity, so the same news is never shown twice. */
  key: string
  title: string
  body: string
  spaceId: string
  changeRequestId: string
}

/** A piece of a search result's text: the page's words, a match or not. */
export interface SearchSnippetPart {
  text: string
  match?: true
}

/** One result of a search: a file of a space folder at a line (local), or a page only the service found (remote). */
export interface SearchHit {
  source: 'local' | 'remote'
  spaceId: string
  spaceTitle?: string
  title: string
  /** The file relative to its space folder, and absolute (for openLocalFile), when there is one. */
  path?: string
  file?: string
  line?: number
  snippet: SearchSnippetPart[]
  /** The page on the service (remote results, and local ones the service found too). */
  url?: string
  /** A local result the service's search found too. */
  alsoRemote?: true
}

export interface SearchResults {
  results: SearchHit[]
  /** The service's search: asked (and how many pages it found), or why not / why it failed, in plain words. */
  remote: { asked: boolean; found?: number; note?: string }
}

/** Which change requests a list shows: the live ones (open and drafts), or the merged or archived ones. */
export type ChangeRequestFilter = 'live' | 'merged' | 'archived'

export type SelectionTarget = { kind: 'organization' | 'collection' | 'space'; id: string; selected: boolean }

/** Request channels: name -> (arguments) => result. */
export interface QuireApi {
  getSession(): Promise<SessionInfo>
  signIn(input: { endpoint: string; token: string }): Promise<SessionInfo>
  useDemoService(): Promise<SessionInfo>
  /** Signs in to the demo service as its writer or its reviewer (the service keeps running through the switch). */
  useDemoServiceAs(input: { as: DemoRole }): Promise<SessionInfo>
  signOut(): Promise<SessionInfo>

  listSpaces(): Promise<OrganizationNode[]>
  setSelection(target: SelectionTarget): Promise<OrganizationNode[]>
  getStatus(): Promise<StatusSnapshot>
  syncNow(): Promise<void>
  setPaused(paused: boolean): Promise<void>

  listChangeRequests(filter: { spaceId?: string; mine?: boolean; status?: ChangeRequestFilter }): Promise<ChangeRequestSummary[]>
  updateChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestUpdate>
  mergeChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestSummary>
  changeRequestPdf(input: { spaceId: string; changeRequestId: string }): Promise<{ url: string }>
  changeRequestChanges(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestChanges>
  /** The description, comment threads and reviews of a change request (as last read, with asOf, offline). */
  changeRequestDiscussion(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestDiscussion>
  /** The author's new description (markdown), through the outbox. */
  editChangeRequestDescription(input: { spaceId: string; changeRequestId: string; description: string }): Promise<ChangeRequestSummary>
  /** The merge rules in force for the change request and whether each is met (online only). */
  changeRequestMergeCheck(input: { spaceId: string; changeRequestId: string }): Promise<MergeCheck>

  /** What waits for the user's review, across organizations (as last read, with asOf, when offline). */
  listForReview(): Promise<ForReviewList>
  listReviewers(input: { spaceId: string; changeRequestId: string }): Promise<ReviewerEntry[]>
  listReviewerCandidates(input: { spaceId: string }): Promise<ReviewerCandidate[]>
  // Review actions go through the outbox: offline the answer's `waiting` says they wait to be sent.
  submitForReview(input: { spaceId: string; changeRequestId: string; description?: string; reviewers?: string[] }): Promise<ChangeRequestSummary>
  requestReviewers(input: { spaceId: string; changeRequestId: string; users: string[] }): Promise<ChangeRequestSummary>
  removeReviewer(input: { spaceId: string; changeRequestId: string; userId: string }): Promise<ChangeRequestSummary>
  reviewChangeRequest(input: { spaceId: string; changeRequestId: string; verdict: ReviewVerdict; comment?: string }): Promise<ChangeRequestSummary>
  archiveChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestSummary>

  compareConflict(input: { spaceId: string; copyPath: string }): Promise<ConflictComparison>
  /** Keep mine: the copy's text replaces the file (and is sent as an edit); keep theirs: the file stays. Either way the copy goes. */
  resolveConflict(input: { spaceId: string; copyPath: string; keep: 'mine' | 'theirs' }): Promise<StatusSnapshot>

  listPages(input: { spaceId: string }): Promise<PageSummary[]>
  listComments(input: { spaceId: string; pageId?: string }): Promise<CommentThread[]>
  postComment(input: { spaceId: string; pageId: string; markdown: string }): Promise<CommentThread>
  /** A thread of the space, or of a change request when `changeRequestId` is given. */
  replyToComment(input: { spaceId: string; commentId: string; markdown: string; changeRequestId?: string }): Promise<CommentThread>
  resolveComment(input: { spaceId: string; commentId: string; changeRequestId?: string }): Promise<CommentThread>
  /** Opens a resolved thread of a change request again. */
  reopenComment(input: { spaceId: string; changeRequestId: string; commentId: string }): Promise<CommentThread>

  /**
   * A page's preview: its file in the space folder as saved, or `markdown` (a change request's version
   * of it, main's) rendered as if at `path`. Images come from the space folder's `.gitbook/assets` only.
   */
  previewPage(input: { spaceId: string; path: string; markdown?: string }): Promise<PagePreview>

  listBrokenLinks(): Promise<BrokenLink[]>
  /**
   * Full-text search of every synced space's files as they are (offline too; the last word a prefix),
   * and of the service beside it when it answers. A query with no word is refused ('invalid').
   */
  searchWorkspace(input: { query: string; spaceId?: string }): Promise<SearchResults>
  /** Opens a workspace file (a broken link's) at its line, on the computer Quire runs on; answers what opened it. */
  openLocalFile(input: { file: string; line?: number }): Promise<OpenedFile>
  openExternal(input: { url: string }): Promise<void>
  openWorkspaceFolder(): Promise<void>

  listActivity(): Promise<ActivityEntry[]>
  getSettings(): Promise<Settings>
  updateSettings(patch: Partial<Settings>): Promise<Settings>
}

export type QuireChannel = keyof QuireApi

/** Events pushed from the engine to the renderer (IPC `quire:event`, or server-sent events headless). */
export type QuireEvent =
  | { type: 'status'; status: StatusSnapshot }
  | { type: 'activity'; entry: ActivityEntry }
  | { type: 'session'; session: SessionInfo }
  /** Someone asked for the user's review, or a review arrived on the user's change request. */
  | { type: 'review'; news: ReviewNews }
  /**
   * Browser only (the `quire serve` bridge makes it): the tab lost its server (`connected: false`), or
   * has it again. While lost, nothing the tab shows is current.
   */
  | { type: 'connection'; connected: boolean; reason?: string }
  /** Desktop only: the tray ("Broken links: N") or a clicked notification asks the window to show a screen. */
  | { type: 'show'; screen: AppScreen }
  /** Files of a space folder were saved (the watcher saw them settle): an open preview of one reads it again. Paths with forward slashes. */
  | { type: 'files'; spaceId: string; paths: string[] }

/** The renderer's screens, as the desktop shell names them in `show` events. */
export type AppScreen = 'spaces' | 'for-review' | 'change-requests' | 'comments' | 'links' | 'activity' | 'settings'

/** What the renderer sees on `window.quire`: the request API plus an event subscription. */
export interface QuireBridge extends QuireApi {
  /**
   * True in a browser tab of `quire serve`: links open in a new tab of this browser (the tab opens what
   * the backend links to), and a folder cannot be opened from a web page. Absent in the desktop app.
   */
  inBrowser?: boolean
  onEvent(listener: (event: QuireEvent) => void): () => void
}

/** Every channel name, for runtime checks at the IPC and HTTP boundaries. */
export const QUIRE_CHANNELS = [
  'getSession',
  'signIn',
  'useDemoService',
  'useDemoServiceAs',
  'signOut',
  'listSpaces',
  'setSelection',
  'getStatus',
  'syncNow',
  'setPaused',
  'listChangeRequests',
  'updateChangeRequest',
  'mergeChangeRequest',
  'changeRequestPdf',
  'changeRequestChanges',
  'changeRequestMergeCheck',
  'changeRequestDiscussion',
  'editChangeRequestDescription',
  'listForReview',
  'listReviewers',
  'listReviewerCandidates',
  'submitForReview',
  'requestReviewers',
  'removeReviewer',
  'reviewChangeRequest',
  'archiveChangeRequest',
  'compareConflict',
  'resolveConflict',
  'listPages',
  'listComments',
  'postComment',
  'replyToComment',
  'resolveComment',
  'reopenComment',
  'previewPage',
  'listBrokenLinks',
  'searchWorkspace',
  'openLocalFile',
  'openExternal',
  'openWorkspaceFolder',
  'listActivity',
  'getSettings',
  'updateSettings',
] as const satisfies readonly QuireChannel[]

// Compile-time proof that QUIRE_CHANNELS lists every channel of QuireApi.
type Missing = Exclude<QuireChannel, (typeof QUIRE_CHANNELS)[number]>
export const allChannelsListed: Missing extends never ? true : Missing = true

export const IPC_PREFIX = 'quire:'
export const EVENT_CHANNEL = 'quire:event'
