import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import type { ChangeRequest } from '@gitbook/api'
import { OrganizationsRepository } from '../../../src/main/service/store/organizations'
import { mainRevision, pagesOf, seedSpace, tempDir, type SeededSpace } from '../../engine/sync-up/support/workspace'
import type { TestService } from '../../support/service'

/**
 * Writers as people are: each on a machine of their own (a QUIRE_HOME with its cache, tokens and
 * workspace), signed in with `quire login` as a user of their own, running `quire watch` as a real child
 * process. A reviewer (the service's owner) merges through the API.
 */

const bin = path.resolve(__dirname, '../../../bin/quire.mjs')

/** The page both writers edit: a title and seven paragraphs, each its own block. */
export const PAGE = 'faq.md'
export const paragraph = (n: number) => `Paragraph ${n} as the base wrote it.`
export const pageText = (changes: Record<number, string> = {}) => `# FAQ\n\n${Array.from({ length: 7 }, (_, i) => changes[i + 1] ?? paragraph(i + 1)).join('\n\n')}\n`

export interface Cli {
  code: number | null
  output: string
}

/** Runs one `quire` command on a writer's machine and waits for it to exit. */
export function runCli(home: string, args: string[], env: Record<string, string> = {}): Promise<Cli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, QUIRE_HOME: home, QUIRE_TOKEN_STORE: 'file', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    child.once('error', reject)
    child.once('exit', (code) => resolve({ code, output }))
  })
}

export class Writer {
  readonly lines: string[] = []
  private child?: ChildProcess
  private exited?: Promise<void>

  constructor(
    readonly name: string,
    readonly userId: string,
    readonly home: string,
    private readonly seeded: SeededSpace,
  ) {}

  get workspace() {
    return path.join(this.home, 'ws')
  }

  get folder() {
    return path.join(this.workspace, 'Acme', 'Docs')
  }

  read(relative = PAGE): string | undefined {
    const file = path.join(this.folder, ...relative.split('/'))
    // One read, no existence check first: Quire may replace or remove the file between the two.
    try {
      return fs.readFileSync(file, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
  }

  write(text: string, relative = PAGE) {
    fs.writeFileSync(path.join(this.folder, ...relative.split('/')), text)
  }

  /**
   * Every conflicted copy in the writer's workspace, relative to the space folder. A copy being written is
   * a hidden temporary file (`.quire-tmp-…`) until its rename: that is not a copy yet (a loaded run once
   * listed one between the write and the rename).
   */
  conflictedCopies(): string[] {
    if (!fs.existsSync(this.folder)) return []
    return (fs.readdirSync(this.folder, { recursive: true }) as string[])
      .filter((f) => f.includes(' (conflicted copy ') && !path.basename(f).startsWith('.'))
      .map((f) => f.split(path.sep).join('/'))
  }

  cli(args: string[]): Promise<Cli> {
    return runCli(this.home, args)
  }

  /** `quire watch` on the space, syncing down every `intervalSeconds` (1: a merge reaches the folder soon). */
  startWatch(intervalSeconds = 1) {
    const child = spawn(process.execPath, [bin, 'watch', '--workspace', this.workspace, '--space', this.seeded.spaceId, '--interval', String(intervalSeconds), '--debounce', '100'], {
      env: { ...process.env, QUIRE_HOME: this.home, QUIRE_TOKEN_STORE: 'file' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    this.child = child
    readline.createInterface({ input: child.stdout! }).on('line', (line) => this.lines.push(line))
    readline.createInterface({ input: child.stderr! }).on('line', (line) => this.lines.push(line))
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()))
  }

  /** Stops watch (SIGTERM lets it close its cache; SIGKILL if it does not) and removes the machine. */
  async remove() {
    const child = this.child
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM')
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await this.exited
      clearTimeout(killer)
    }
    fs.rmSync(this.home, { recursive: true, force: true })
  }
}

export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: () => string, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

export interface TwoWriters {
  seeded: SeededSpace
  pageId: string
  a: Writer
  b: Writer
}

let users = 0

/**
 * A space whose faq page has seven paragraphs, two users with edit rights in its organization, each
 * signed in on a machine of its own with `quire login` and running `quire watch`; resolves once both
 * folders hold the page. `intervals` sets each watch's sync-down interval (seconds).
 */
export async function twoWriters(t: TestService, intervals: { a?: number; b?: number } = {}): Promise<TwoWriters> {
  const seeded = await seedSpace(t)
  const pageId = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === PAGE)![0]
  await mergeAsReviewer(t, seeded.spaceId, await reviewerChangeRequest(t, seeded.spaceId, [{ operation: 'update_page', page: pageId, document: { markdown: pageText() } }]))
  const writers: Writer[] = []
  for (const name of ['A', 'B']) {
    const user = t.service.createUser({ displayName: `Writer ${name}`, email: `writer-${name.toLowerCase()}-${++users}@quire.local` })
    t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, user.id, 'edit')
    const writer = new Writer(name, user.id, tempDir(`quire-e2e-${name.toLowerCase()}-`), seeded)
    writers.push(writer)
    const login = await runCli(writer.home, ['login', '--endpoint', t.service.origin], { QUIRE_TOKEN: user.token })
    if (login.code !== 0) throw new Error(`quire login for writer ${name} exited ${login.code}: ${login.output}`)
    writer.startWatch(name === 'A' ? intervals.a : intervals.b)
  }
  for (const w of writers) await until(() => (w.read()?.includes(paragraph(7)) ? true : undefined), () => `writer ${w.name}'s first sync (${w.lines.join(' | ')})`)
  return { seeded, pageId, a: writers[0], b: writers[1] }
}

async function reviewerChangeRequest(t: TestService, spaceId: string, changes: unknown[]): Promise<string> {
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Reviewer' } })).body as ChangeRequest
  await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  return cr.id
}

/** The reviewer merges a change request through the API; what the service answered. */
export async function mergeAsReviewer(t: TestService, spaceId: string, changeRequestId: string): Promise<string> {
  return (await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId } })).body.result
}

/** The writer's open change request in the space, if any. */
export async function openChangeRequestOf(t: TestService, spaceId: string, userId: string): Promise<ChangeRequest | undefined> {
  for (const status of ['draft', 'open']) {
    const items = (await t.api.call('listChangeRequestsForSpace', { params: { spaceId }, query: { status } })).body.items as ChangeRequest[]
    const mine = items.find((cr) => cr.createdBy.id === userId)
    if (mine) return mine
  }
  return undefined
}

export async function changeRequestMarkdown(t: TestService, spaceId: string, changeRequestId: string, pageId: string): Promise<string> {
  return (await t.api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId, pageId }, query: { format: 'markdown' } })).body.markdown
}

export async function mainMarkdown(t: TestService, spaceId: string, pageId: string): Promise<string> {
  return (await t.api.call('getPageById', { params: { spaceId, pageId }, query: { format: 'markdown' } })).body.markdown
}

/** Waits for the writer's open change request to carry `text` on the page; the change request. */
export async function changeRequestCarrying(t: TestService, w: Writer, x: TwoWriters, text: string): Promise<ChangeRequest> {
  return until(
    async () => {
      const cr = await openChangeRequestOf(t, x.seeded.spaceId, w.userId)
      return cr && (await changeRequestMarkdown(t, x.seeded.spaceId, cr.id, x.pageId)).includes(text) ? cr : undefined
    },
    () => `writer ${w.name}'s change request to carry "${text}" (${w.lines.join(' | ')})`,
  )
}

/** The writer's `quire status --json` entry for the space. */
export async function statusOf(w: Writer, spaceId: string): Promise<{ state: string; revision?: string; [key: string]: unknown } | undefined> {
  const { output } = await w.cli(['status', '--json'])
  const json = JSON.parse(output.slice(output.indexOf('{'))) as { spaces: Array<{ spaceId: string; state: string; revision?: string }> }
  return json.spaces.find((s) => s.spaceId === spaceId)
}

/** Waits until the writer's watch has mirrored main's current revision and shows the space in `state`. */
export async function mirrorsMain(t: TestService, w: Writer, spaceId: string, state: 'synced' | 'conflict' = 'synced') {
  let last: unknown
  return until(
    async () => {
      const main = await mainRevision(t.api, spaceId)
      const status = await statusOf(w, spaceId)
      last = status
      return status?.state === state && status.revision === main.id ? true : undefined
    },
    () => `writer ${w.name}'s watch to mirror main, ${state} (status: ${JSON.stringify(last)})\n${w.lines.join('\n')}`,
  )
}
