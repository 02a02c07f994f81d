import path from 'node:path'
import { QUIRE_CHANNELS, type QuireApi, type QuireChannel, type Settings } from '../../shared/contract'

/**
 * Checks the arguments of every request channel at the boundary (the headless HTTP bridge and the
 * Electron IPC handlers), so the backend only ever sees well-formed input. Objects are strict: an
 * unknown key is an error, as a typo would otherwise be silently ignored.
 */

export class ChannelArgsError extends Error {}

export type ChannelArgs = { [C in QuireChannel]: Parameters<QuireApi[C]> }

type Check<T> = (value: unknown, where: string) => T

const MAX_ID = 200
const MAX_TEXT = 20_000
const MAX_PATH = 4096

function fail(where: string, message: string): never {
  throw new ChannelArgsError(`${where} ${message}`)
}

const id: Check<string> = (value, where) => {
  if (typeof value !== 'string' || value.length === 0) fail(where, 'must be a non-empty string')
  if (value.length > MAX_ID) fail(where, `must be at most ${MAX_ID} characters`)
  if (!/^[\w.:-]+$/.test(value)) fail(where, 'must be an identifier (letters, digits, _ . : -)')
  return value
}

const bool: Check<boolean> = (value, where) => (typeof value === 'boolean' ? value : fail(where, 'must be true or false'))

const text =
  (max: number): Check<string> =>
  (value, where) => {
    if (typeof value !== 'string') fail(where, 'must be a string')
    if (value.trim().length === 0) fail(where, 'must not be empty')
    if (value.length > max) fail(where, `must be at most ${max} characters`)
    return value
  }

const httpUrl: Check<string> = (value, where) => {
  const raw = text(2048)(value, where)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return fail(where, 'must be a URL')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(where, 'must be an http(s) URL')
  return raw
}

const absolutePath: Check<string> = (value, where) => {
  const raw = text(MAX_PATH)(value, where)
  if (raw.includes('\0')) fail(where, 'must not contain NUL')
  if (!path.isAbsolute(raw)) fail(where, 'must be an absolute path')
  return raw
}

/** A path inside a space folder, as the outbox names conflicted copies: relative, forward slashes, no `..`. */
const relativePath: Check<string> = (value, where) => {
  const raw = text(MAX_PATH)(value, where)
  if (raw.includes('\0') || raw.includes('\\')) fail(where, 'must not contain NUL or backslashes')
  if (raw.startsWith('/') || raw.split('/').includes('..')) fail(where, 'must be a relative path inside the space folder')
  return raw
}

const integer =
  (min: number, max: number): Check<number> =>
  (value, where) => {
    if (typeof value !== 'number' || !Number.isInteger(value)) fail(where, 'must be an integer')
    if (value < min || value > max) fail(where, `must be between ${min} and ${max}`)
    return value
  }

const oneOf =
  <T extends string>(...options: T[]): Check<T> =>
  (value, where) =>
    typeof value === 'string' && (options as string[]).includes(value) ? (value as T) : fail(where, `must be one of ${options.join(', ')}`)

type Shape = Record<string, { check: Check<unknown>; optional?: boolean }>
type ShapeResult<S extends Shape> = { [K in keyof S as S[K]['optional'] extends true ? never : K]: ReturnType<S[K]['check']> } & {
  [K in keyof S as S[K]['optional'] extends true ? K : never]?: ReturnType<S[K]['check']>
}

const req = <T>(check: Check<T>) => ({ check })
const opt = <T>(check: Check<T>) => ({ check, optional: true as const })

function object<S extends Shape>(shape: S): Check<ShapeResult<S>> {
  return (value, where) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(where, 'must be an object')
    const input = value as Record<string, unknown>
    for (const key of Object.keys(input)) if (!(key in shape)) fail(`${where}.${key}`, 'is not a known field')
    const out: Record<string, unknown> = {}
    for (const [key, field] of Object.entries(shape)) {
      if (input[key] === undefined) {
        if (!field.optional) fail(`${where}.${key}`, 'is required')
        continue
      }
      out[key] = field.check(input[key], `${where}.${key}`)
    }
    return out as ShapeResult<S>
  }
}

/** A list of user ids (reviewers), one at least. */
const ids: Check<string[]> = (value, where) => {
  if (!Array.isArray(value) || value.length === 0) fail(where, 'must be a non-empty list')
  if (value.length > 100) fail(where, 'must name at most 100 users')
  return value.map((v, i) => id(v, `${where}[${i}]`))
}

/** A page's markdown as the preview is given it (a change request's version): may be empty, up to the server's body limit. */
const pageMarkdown: Check<string> = (value, where) => {
  if (typeof value !== 'string') fail(where, 'must be a string')
  if (value.length > 1_000_000) fail(where, 'must be at most 1000000 characters')
  return value
}

const spaceCr = object({ spaceId: req(id), changeRequestId: req(id) })

/** The Settings screen's names of its fields: a refusal names what the user sees, not `updateSettings[0].workspace`. */
const SETTING_WORDS: Record<string, string> = {
  workspace: 'The workspace folder',
  intervalSeconds: '"Sync every (seconds)"',
  paused: '"Pause syncing"',
  startAtLogin: '"Start Quire at login"',
  notifications: '"Show notifications"',
}

/** What a refused setting needs, in the user's words ("an absolute path" is said with an example). */
const SETTING_NEEDS: Array<[RegExp, string]> = [
  [/^must be an absolute path$/, 'must be a full path, from the top of the disk (such as /home/ada/Quire, or C:\\Users\\Ada\\Quire on Windows)'],
  [/^must be an integer$/, 'must be a whole number of seconds'],
  [/^must be between 10 and 86400$/, 'must be between 10 seconds and 86400 (a day)'],
  [/^must not be empty$/, 'cannot be empty'],
]

const settingsFields = object({
  workspace: opt(absolutePath),
  intervalSeconds: opt(integer(10, 86_400)),
  paused: opt(bool),
  startAtLogin: opt(bool),
  notifications: opt(bool),
})

const settingsPatch: Check<Partial<Settings>> = (value, where) => {
  try {
    return settingsFields(value, where)
  } catch (error) {
    const found = error instanceof ChannelArgsError ? new RegExp(`^${where.replace(/[[\]]/g, '\\$&')}\\.(\\w+) (.*)$`).exec(error.message) : null
    const field = found && SETTING_WORDS[found[1]]
    if (!found || !field) throw error
    const need = SETTING_NEEDS.find(([pattern]) => pattern.test(found[2]))?.[1] ?? found[2]
    const given = (value as Record<string, unknown>)[found[1]]
    throw new ChannelArgsError(`${field} ${need}${typeof given === 'string' && given.trim() ? `: "${given}" is not` : ''}. Nothing was saved.`)
  }
}

/** Channels take no argument or one. */
type ArgChecks<A extends unknown[]> = A extends [] ? [] : A extends [infer X] ? [Check<X>] : never

/** One entry per channel: the checks of its positional arguments. */
const CHANNEL_CHECKS: { [C in QuireChannel]: ArgChecks<ChannelArgs[C]> } = {
  getSession: [],
  signIn: [object({ endpoint: req(httpUrl), token: req(text(4096)) })],
  useDemoService: [],
  useDemoServiceAs: [object({ as: req(oneOf('writer', 'reviewer')) })],
  signOut: [],
  listSpaces: [],
  setSelection: [object({ kind: req(oneOf('organization', 'collection', 'space')), id: req(id), selected: req(bool) })],
  getStatus: [],
  syncNow: [],
  setPaused: [bool],
  listChangeRequests: [object({ spaceId: opt(id), mine: opt(bool), status: opt(oneOf('live', 'merged', 'archived')) })],
  updateChangeRequest: [spaceCr],
  mergeChangeRequest: [spaceCr],
  changeRequestPdf: [spaceCr],
  changeRequestChanges: [spaceCr],
  changeRequestMergeCheck: [spaceCr],
  changeRequestDiscussion: [spaceCr],
  editChangeRequestDescription: [object({ spaceId: req(id), changeRequestId: req(id), description: req(text(MAX_TEXT)) })],
  listForReview: [],
  listReviewers: [spaceCr],
  listReviewerCandidates: [object({ spaceId: req(id) })],
  submitForReview: [object({ spaceId: req(id), changeRequestId: req(id), description: opt(text(MAX_TEXT)), reviewers: opt(ids) })],
  requestReviewers: [object({ spaceId: req(id), changeRequestId: req(id), users: req(ids) })],
  removeReviewer: [object({ spaceId: req(id), changeRequestId: req(id), userId: req(id) })],
  reviewChangeRequest: [object({ spaceId: req(id), changeRequestId: req(id), verdict: req(oneOf('approved', 'changes-requested')), comment: opt(text(MAX_TEXT)) })],
  archiveChangeRequest: [spaceCr],
  compareConflict: [object({ spaceId: req(id), copyPath: req(relativePath) })],
  resolveConflict: [object({ spaceId: req(id), copyPath: req(relativePath), keep: req(oneOf('mine', 'theirs')) })],
  listPages: [object({ spaceId: req(id) })],
  listComments: [object({ spaceId: req(id), pageId: opt(id) })],
  postComment: [object({ spaceId: req(id), pageId: req(id), markdown: req(text(MAX_TEXT)) })],
  replyToComment: [object({ spaceId: req(id), commentId: req(id), markdown: req(text(MAX_TEXT)), changeRequestId: opt(id) })],
  resolveComment: [object({ spaceId: req(id), commentId: req(id), changeRequestId: opt(id) })],
  reopenComment: [object({ spaceId: req(id), changeRequestId: req(id), commentId: req(id) })],
  previewPage: [object({ spaceId: req(id), path: req(relativePath), markdown: opt(pageMarkdown) })],
  listBrokenLinks: [],
  searchWorkspace: [object({ query: req(text(512)), spaceId: opt(id) })],
  openLocalFile: [object({ file: req(absolutePath), line: opt(integer(1, 10_000_000)) })],
  openExternal: [object({ url: req(httpUrl) })],
  openWorkspaceFolder: [],
  listActivity: [],
  getSettings: [],
  updateSettings: [settingsPatch],
}

const channelNames: ReadonlySet<string> = new Set(QUIRE_CHANNELS)

export function isQuireChannel(name: string): name is QuireChannel {
  return channelNames.has(name)
}

/** Validates `args` (the positional arguments, as an array) for `channel`; throws ChannelArgsError. */
export function parseChannelArgs<C extends QuireChannel>(channel: C, args: unknown): ChannelArgs[C] {
  if (!isQuireChannel(channel)) throw new ChannelArgsError(`unknown channel "${String(channel)}"`)
  if (!Array.isArray(args)) throw new ChannelArgsError('arguments must be a JSON array')
  const checks = CHANNEL_CHECKS[channel] as readonly Check<unknown>[]
  if (args.length !== checks.length) throw new ChannelArgsError(`${channel} takes ${checks.length} argument(s), got ${args.length}`)
  return checks.map((check, index) => check(args[index], `${channel}[${index}]`)) as ChannelArgs[C]
}
