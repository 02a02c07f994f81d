import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChangeRequest, Revision, RevisionPage } from '@gitbook/api'
import { afterEach } from 'vitest'
import { gitBlobOid } from '../../../../src/main/content'
import { CacheRepository } from '../../../../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../../../../src/main/engine/cache/open-cache'
import { CommentsRepository } from '../../../../src/main/engine/comments/comments-repository'
import { ApiGateway } from '../../../../src/main/engine/gateway/api-gateway'
import { enqueueAction } from '../../../../src/main/engine/outbox/action-keys'
import { OutboxRepository } from '../../../../src/main/engine/outbox/outbox-repository'
import { OutboxSender } from '../../../../src/main/engine/outbox/outbox-sender'
import type { NewOutboxOp } from '../../../../src/main/engine/outbox/outbox-types'
import { updateFromMainOrConflicts } from '../../../../src/main/engine/push/update-own-from-main'
import { SpacePusher } from '../../../../src/main/engine/push/space-pusher'
import { pullSpace } from '../../../../src/main/engine/watch/pull'
import { OrganizationsRepository } from '../../../../src/main/service/store/organizations'
import type { ApiClient, TestService } from '../../../support/service'
import type { FrontEndAsk } from './app-workstation'

/** A small space with a tree worth editing: a home page, a leaf, a page with subpages, an image. */
export const SEED_PAGES = {
  home: '# Home\n\nWelcome to the guide.\n',
  start: '# Getting started\n\nRead this first.\n',
  guide: '# Guide\n\nThe guide.\n',
  install: '# Install\n\nRun the installer.\n',
  configure: '# Configure\n\nEdit the settings.\n\n![Logo](../.gitbook/assets/logo.png)\n',
  faq: '# FAQ\n\nQuestions.\n',
}

/** A 1x1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

export interface SeededSpace {
  orgId: string
  spaceId: string
}

/** Creates an organization and a space through the API and fills it through a merged change request. */
export async function seedSpace(t: TestService, title = 'Docs'): Promise<SeededSpace> {
  const orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: t.service.ownerId }).id
  const space = (await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title } })).body as { id: string }
  const spaceId = space.id
  const first = (await t.api.call('getCurrentRevision', { params: { spaceId } })).body as Revision
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Seed' } })).body as ChangeRequest
  await t.api.call('updateChangeRequestContent', {
    params: { spaceId, changeRequestId: cr.id },
    body: {
      changes: [
        { operation: 'update_page', page: first.pages[0].id, document: { markdown: SEED_PAGES.home }, slug: 'home' },
        { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', base64: PNG.toString('base64') }] },
        { operation: 'insert_page', document: { markdown: SEED_PAGES.start }, slug: 'getting-started' },
        { operation: 'insert_page', document: { markdown: SEED_PAGES.guide }, slug: 'guide', ref: 'guide' },
        { operation: 'insert_page', document: { markdown: SEED_PAGES.install }, slug: 'install', into: 'guide' },
        { operation: 'insert_page', document: { markdown: SEED_PAGES.configure.replace('../.gitbook/assets/logo.png', './logo') }, slug: 'configure', into: 'guide' },
        { operation: 'insert_page', document: { markdown: SEED_PAGES.faq }, slug: 'faq' },
      ],
    },
  })
  const merged = await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  if (merged.body.result !== 'merge') throw new Error(`seeding did not merge: ${JSON.stringify(merged.body)}`)
  return { orgId, spaceId }
}

/** A writer's machine: a cache, a gateway, a space folder, and the engine over them. */
/** Where a workstation's service is and who the writer is. */
export interface Remote {
  origin: string
  token: string
  userId: string
}

export const remoteOf = (t: TestService, token = t.service.token, userId = t.service.ownerId): Remote => ({ origin: t.service.origin, token, userId })

/** A space folder as a writer's editor sees it: files by their `/`-separated path in the space. */
export abstract class SpaceFiles {
  abstract get folder(): string

  file(relative: string) {
    return path.join(this.folder, ...relative.split('/'))
  }

  read(relative: string) {
    return fs.readFileSync(this.file(relative), 'utf8')
  }

  write(relative: string, content: string | Buffer) {
    fs.mkdirSync(path.dirname(this.file(relative)), { recursive: true })
    fs.writeFileSync(this.file(relative), content)
  }
}

/** The files of the folder at `folder`. */
export class FolderFiles extends SpaceFiles {
  constructor(readonly folder: string) {
    super()
  }
}

export class Workstation extends SpaceFiles {
  readonly cache: CacheRepository
  readonly outbox: OutboxRepository
  readonly comments: CommentsRepository
  readonly gateway: ApiGateway
  readonly pusher: SpacePusher
  readonly userId: string
  private readonly db

  constructor(
    remote: Remote | TestService,
    readonly seeded: SeededSpace,
    readonly dir: string,
    /**
     * `deletionQuietMs`: how long a removal waits (default here 0: the tests of this workstation test
     * other things than the quiet interval; those that test it pass the product's default).
     */
    options: { gateway?: Partial<ConstructorParameters<typeof ApiGateway>[0]>; deletionQuietMs?: number; now?: () => Date } = {},
  ) {
    super()
    const r = 'service' in remote ? remoteOf(remote) : remote
    this.db = openCacheDatabase(path.join(dir, 'cache.db'))
    this.cache = new CacheRepository(this.db)
    this.outbox = new OutboxRepository(this.db)
    this.comments = new CommentsRepository(this.db)
    const userId = r.userId
    this.userId = userId
    const account = this.cache.saveAccount({ id: `acct-${userId}`, endpoint: r.origin, userId, displayName: 'Writer', tokenStore: 'file' })
    this.cache.upsertOrganization({ id: seeded.orgId, accountId: account.id, title: 'Acme' })
    this.cache.upsertSpace({ id: seeded.spaceId, orgId: seeded.orgId, title: 'Docs' })
    this.gateway = new ApiGateway({ endpoint: r.origin, token: r.token, maxAttempts: 2, backoff: { baseMs: 5, capMs: 20 }, ...options.gateway })
    this.pusher = new SpacePusher({
      gateway: this.gateway,
      cache: this.cache,
      outbox: this.outbox,
      comments: this.comments,
      spaceId: seeded.spaceId,
      folder: this.folder,
      userId,
      deletionQuietMs: options.deletionQuietMs ?? 0,
      now: options.now,
    })
  }

  get folder() {
    return path.join(this.dir, 'workspace', 'Acme', 'Docs')
  }

  /** A sync down pass (the sync-down engine's), holding the pages the change request moves or deletes. */
  async pull() {
    return pullSpace({ gateway: this.gateway, cache: this.cache, outbox: this.outbox, spaceId: this.seeded.spaceId, folder: this.folder, refreshLinks: false })
  }

  async push() {
    return this.pusher.push()
  }

  /** "Merge" from Quire's CLI (through the outbox); what the service answered. */
  async merge(changeRequestId: string): Promise<string> {
    return (await this.pusher.merge(changeRequestId)).result
  }

  /** `quire cr update` (cli/cr-command.ts): asked of the service; refused for conflicts, the push makes the copies and it is asked again. */
  async updateFromMain(changeRequestId: string): Promise<string> {
    const updated = await updateFromMainOrConflicts({ gateway: this.gateway, outbox: this.outbox, spaceId: this.seeded.spaceId, changeRequestId, push: () => this.push() })
    return updated.result === 'refused' ? 'refused' : updated.refused ? `refused, then ${updated.result} (${updated.copies.length} conflicted copies)` : updated.result
  }

  /**
   * `quire comment`, `quire reply`, `quire resolve` (cli/comments-command.ts `post`): the op queued under
   * its deterministic key in the current push session, then the outbox sent; a repeat already sent is not.
   */
  async act(ask: FrontEndAsk): Promise<string> {
    const spaceId = this.seeded.spaceId
    const userId = this.userId
    const session = this.outbox.ensureSession(spaceId, userId)
    const scope = ask.kind === 'comment' || ask.kind === 'review' ? undefined : this.comments.thread(ask.commentId)?.changeRequestId
    const payload =
      ask.kind === 'review'
        ? { changeRequestId: ask.changeRequestId, verdict: ask.verdict, comment: ask.text, userId }
        : ask.kind === 'comment'
        ? { pageId: ask.pageId, text: ask.text.trim(), target: this.cache.remoteTree(spaceId).pages.some((p) => p.id === ask.pageId) ? 'space' : 'change-request', userId }
        : ask.kind === 'reply'
          ? { commentId: ask.commentId, text: ask.text.trim(), userId, ...(scope ? { changeRequestId: scope } : {}) }
          : { commentId: ask.commentId, ...(scope ? { changeRequestId: scope } : {}) }
    const op = { spaceId, generation: session.generation, kind: ask.kind, payload } as Omit<NewOutboxOp, 'key'>
    const { seq, repeat } = enqueueAction(op, { outbox: this.outbox, comments: this.comments, userId })
    if (repeat === 'sent') return 'already sent'
    const drained = await new OutboxSender(this.gateway, this.outbox, this.comments).drain(spaceId)
    const state = this.outbox.op(seq)?.state
    return `${repeat ? `already ${repeat}, ` : ''}${state === 'done' ? 'sent' : state === 'failed' ? `refused: ${this.outbox.op(seq)?.lastError}` : `waits (${drained.stopped?.message ?? 'not sent'})`}`
  }

  close() {
    this.db.close()
  }
}

export function tempDir(prefix = 'quire-up-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix))
}

/**
 * A scratch folder for each test that asks for one (`make`), removed after it, and `write` of bytes at a
 * slash-separated path in it (folders made on the way): what the planned file's record says.
 */
export function scratchFolderPerTest(prefix: string) {
  let folder: string | undefined
  afterEach(() => {
    if (folder) fs.rmSync(folder, { recursive: true, force: true })
    folder = undefined
  })
  return {
    make: (): string => (folder = tempDir(prefix)),
    write(rel: string, bytes: Buffer): { path: string; hash: string; size: number } {
      if (!folder) throw new Error('no scratch folder: call make() first')
      const full = path.join(folder, ...rel.split('/'))
      fs.mkdirSync(path.dirname(full), { recursive: true })
      fs.writeFileSync(full, bytes)
      return { path: rel, hash: gitBlobOid(bytes), size: bytes.byteLength }
    },
  }
}

/** Every document page of a revision: id -> {title, path, oid, parent}. */
export function pagesOf(revision: Revision): Map<string, { title: string; path: string; oid: string; parent?: string; slug?: string }> {
  const out = new Map<string, { title: string; path: string; oid: string; parent?: string; slug?: string }>()
  const visit = (pages: readonly RevisionPage[], parent?: string) => {
    for (const p of pages) {
      if ('git' in p && p.git) out.set(p.id, { title: p.title, path: p.git.path, oid: p.git.oid, parent, slug: 'slug' in p ? p.slug : undefined })
      if ('pages' in p && Array.isArray(p.pages)) visit(p.pages, p.id)
    }
  }
  visit(revision.pages)
  return out
}

export async function mainRevision(api: ApiClient, spaceId: string): Promise<Revision> {
  return (await api.call('getCurrentRevision', { params: { spaceId } })).body as Revision
}

export async function changeRequestRevision(api: ApiClient, spaceId: string, changeRequestId: string): Promise<Revision> {
  return (await api.call('getRevisionOfChangeRequestById', { params: { spaceId, changeRequestId } })).body as Revision
}

/** Pages whose content or place differs between two revisions (by id), plus pages only one side has. */
export function changedPages(before: Revision, after: Revision): { changed: string[]; added: string[]; removed: string[] } {
  const a = pagesOf(before)
  const b = pagesOf(after)
  const changed = [...b].filter(([id, p]) => a.has(id) && (a.get(id)!.oid !== p.oid || a.get(id)!.path !== p.path)).map(([id]) => id)
  const added = [...b.keys()].filter((id) => !a.has(id))
  const removed = [...a.keys()].filter((id) => !b.has(id))
  return { changed, added, removed }
}

export async function openChangeRequests(api: ApiClient, spaceId: string): Promise<ChangeRequest[]> {
  const out: ChangeRequest[] = []
  for (const status of ['draft', 'open']) {
    const res = await api.call('listChangeRequestsForSpace', { params: { spaceId }, query: { status } })
    out.push(...(res.body.items as ChangeRequest[]))
  }
  return out
}

/** The id of main's page at `gitPath`. */
export async function pageIdAt(api: ApiClient, spaceId: string, gitPath: string): Promise<string> {
  const found = [...pagesOf(await mainRevision(api, spaceId))].find(([, page]) => page.path === gitPath)
  if (!found) throw new Error(`main has no page at ${gitPath}`)
  return found[0]
}

/** A page as the (first) open change request of the space carries it; undefined while there is none. */
export async function openChangeRequestMarkdown(api: ApiClient, spaceId: string, pageId: string): Promise<string | undefined> {
  const [cr] = await openChangeRequests(api, spaceId)
  if (!cr) return undefined
  return (await api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId: cr.id, pageId }, query: { format: 'markdown' } })).body.markdown
}
