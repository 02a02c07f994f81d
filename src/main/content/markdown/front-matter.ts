/**
 * Page metadata <-> Git Sync front matter.
 *
 * GitBook writes front matter with js-yaml defaults (80-column lines, long
 * strings folded `>-`) in a fixed key order, and nests layout switches as
 * `{visible: boolean}` objects. We reproduce that so a page we write is
 * byte-identical to what Git Sync would commit, and read leniently: unknown
 * keys and values of the wrong type are ignored rather than rejected, because a
 * hand-edited file must never block a sync.
 */
import yaml from 'js-yaml'
import { ContentError } from '../errors'
import type { PageLayout, PageMetadata, PageMetaLinks, PageMetaLinkTarget } from '../types'

export type YamlMap = Record<string, unknown>

/** Layout switches in the order GitBook writes them; `cover` is special (it also carries size and mask). */
const LAYOUT_SWITCHES = ['title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata', 'tags', 'actions', 'anchors'] as const

const WIDTHS: ReadonlyArray<PageLayout['width']> = ['default', 'wide']
const COVER_SIZES: ReadonlyArray<PageLayout['coverSize']> = ['hero', 'full', 'background']
const COVER_MASKS: ReadonlyArray<PageLayout['coverMask']> = ['none', 'radial']

/* ---------------------------------- write --------------------------------- */

/** Front matter keys Quire reads into page metadata, in the order Git Sync writes them. */
export const METADATA_KEYS = ['description', 'icon', 'emoji', 'cover', 'coverY', 'coverHeight', 'hidden', 'noIndex', 'noRobotsIndex', 'layout', 'metaLinks', 'if', 'vars'] as const

/** YAML text of the front matter (without `---` fences), or '' when the page has no metadata to write. */
export function dumpFrontMatter(metadata: PageMetadata): string {
  const object = frontMatterObject(metadata)
  return Object.keys(object).length === 0 ? '' : dumpYaml(object)
}

/** YAML text of `object` the way Git Sync writes it (js-yaml, 80 columns, long strings folded). */
export function dumpYaml(object: YamlMap): string {
  return yaml.dump(object, { noRefs: true, lineWidth: 80 })
}

/** The front matter of `metadata` as a YAML map, its keys in Git Sync's order (METADATA_KEYS). */
export function frontMatterObject(metadata: PageMetadata): YamlMap {
  const m = normalizeMetadata(metadata)
  const out: YamlMap = {}
  // Key order is part of the format: it is the order Git Sync writes.
  setIfDefined(out, 'description', m.description)
  setIfDefined(out, 'icon', m.icon)
  setIfDefined(out, 'emoji', m.emoji)
  setIfDefined(out, 'cover', m.cover)
  setIfDefined(out, 'coverY', m.coverY)
  setIfDefined(out, 'coverHeight', m.coverHeight)
  setIfDefined(out, 'hidden', m.hidden)
  setIfDefined(out, 'noIndex', m.noIndex)
  setIfDefined(out, 'noRobotsIndex', m.noRobotsIndex)
  if (m.layout) out.layout = layoutObject(m.layout)
  if (m.metaLinks) out.metaLinks = metaLinksObject(m.metaLinks)
  setIfDefined(out, 'if', m.condition)
  if (m.variables) out.vars = { ...m.variables }
  return out
}

function layoutObject(layout: PageLayout): YamlMap {
  const out: YamlMap = {}
  setIfDefined(out, 'width', layout.width)
  const cover: YamlMap = {}
  setIfDefined(cover, 'visible', layout.cover)
  setIfDefined(cover, 'size', layout.coverSize)
  setIfDefined(cover, 'mask', layout.coverMask)
  if (Object.keys(cover).length > 0) out.cover = cover
  for (const key of LAYOUT_SWITCHES) if (layout[key] !== undefined) out[key] = { visible: layout[key] }
  return out
}

/** URL targets are written as bare strings (how people write them by hand); page targets keep their object form. */
function metaLinksObject(links: PageMetaLinks): YamlMap {
  const target = (t: PageMetaLinkTarget): unknown => (t.kind === 'url' ? t.url : { ...t })
  const out: YamlMap = {}
  if (links.canonical) out.canonical = target(links.canonical)
  if (links.alternates) out.alternates = links.alternates.map(target)
  return out
}

function setIfDefined(out: YamlMap, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value
}

/* ---------------------------------- read ---------------------------------- */

/**
 * Parses front matter YAML (the text between the fences). Throws ContentError
 * on invalid YAML. `title` is the `title:` key, which Git Sync reads as the
 * page title when the file has no `# H1` (and always for reusable content).
 */
export function loadFrontMatter(text: string): { metadata: PageMetadata; title?: string } {
  const value = loadYaml(text)
  if (value === undefined || value === null) return { metadata: {} }
  if (!isMap(value)) throw new ContentError('Invalid front matter: expected a YAML mapping of keys to values')
  const title = asText(value.title)
  return title === undefined ? { metadata: metadataFromObject(value) } : { metadata: metadataFromObject(value), title }
}

/** The page metadata a front matter map gives (keys Quire does not model are ignored). */
export function metadataFromObject(raw: YamlMap): PageMetadata {
  const m: PageMetadata = {
    description: asText(raw.description),
    icon: asText(raw.icon),
    emoji: asText(raw.emoji),
    cover: asText(raw.cover),
    coverY: asNumber(raw.coverY),
    coverHeight: asNumber(raw.coverHeight),
    hidden: asBoolean(raw.hidden),
    noIndex: asBoolean(raw.noIndex),
    noRobotsIndex: asBoolean(raw.noRobotsIndex),
    layout: isMap(raw.layout) ? layoutFromObject(raw.layout) : undefined,
    metaLinks: isMap(raw.metaLinks) ? metaLinksFromObject(raw.metaLinks) : undefined,
    condition: asText(raw.if),
    variables: isMap(raw.vars) ? variablesFromObject(raw.vars) : undefined,
  }
  return normalizeMetadata(m)
}

/** Front matter YAML as a value; a ContentError when it is not valid YAML. */
export function loadYaml(text: string): unknown {
  try {
    // CORE_SCHEMA: `description: 2024-01-01` stays a string instead of becoming a Date.
    return yaml.load(text, { schema: yaml.CORE_SCHEMA })
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error)
    throw new ContentError(`Invalid YAML front matter: ${reason}`)
  }
}

function layoutFromObject(raw: YamlMap): PageLayout {
  const layout: PageLayout = { width: oneOf(raw.width, WIDTHS) }
  // Accept both Git Sync's `{visible: x}` and a bare boolean.
  if (isMap(raw.cover)) {
    layout.cover = asBoolean(raw.cover.visible)
    layout.coverSize = oneOf(raw.cover.size, COVER_SIZES)
    layout.coverMask = oneOf(raw.cover.mask, COVER_MASKS)
  } else {
    layout.cover = asBoolean(raw.cover)
  }
  for (const key of LAYOUT_SWITCHES) {
    const value = raw[key]
    layout[key] = isMap(value) ? asBoolean(value.visible) : asBoolean(value)
  }
  return layout
}

function metaLinksFromObject(raw: YamlMap): PageMetaLinks {
  const links: PageMetaLinks = { canonical: metaLinkTarget(raw.canonical) }
  if (Array.isArray(raw.alternates)) {
    links.alternates = raw.alternates.map(metaLinkTarget).filter((t): t is PageMetaLinkTarget => t !== undefined)
  }
  return links
}

function metaLinkTarget(raw: unknown): PageMetaLinkTarget | undefined {
  if (typeof raw === 'string') return { kind: 'url', url: raw }
  if (!isMap(raw)) return undefined
  if (raw.kind === 'url' && typeof raw.url === 'string') return { kind: 'url', url: raw.url }
  if (raw.kind === 'page' && typeof raw.page === 'string') {
    return typeof raw.space === 'string' ? { kind: 'page', page: raw.page, space: raw.space } : { kind: 'page', page: raw.page }
  }
  return undefined
}

function variablesFromObject(raw: YamlMap): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(raw)) {
    const text = asText(value)
    if (text !== undefined) out[key] = text
  }
  return out
}

/* ------------------------------- normalizing ------------------------------ */

/**
 * Canonical form of metadata: no undefined-valued keys, no empty `layout` /
 * `metaLinks` / `variables` objects. Two metadata values describe the same
 * front matter exactly when their normalized forms are deep-equal.
 */
export function normalizeMetadata(metadata: PageMetadata): PageMetadata {
  const out: PageMetadata = {}
  for (const [key, value] of Object.entries(metadata) as Array<[keyof PageMetadata, unknown]>) {
    if (value === undefined) continue
    if (key === 'layout' || key === 'metaLinks' || key === 'variables') {
      const cleaned = dropUndefined(value as YamlMap)
      if (Object.keys(cleaned).length > 0) Object.assign(out, { [key]: cleaned })
    } else {
      Object.assign(out, { [key]: value })
    }
  }
  return out
}

/** Whether two metadata values describe the same front matter (key order and undefined keys aside). */
export function sameMetadata(a: PageMetadata, b: PageMetadata): boolean {
  return sortedJson(normalizeMetadata(a)) === sortedJson(normalizeMetadata(b))
}

function sortedJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (isMap(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) : v))
}

function dropUndefined(value: YamlMap): YamlMap {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
}

export function isMap(value: unknown): value is YamlMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Strings as-is; numbers and booleans as their text (a hand-written `description: 42`). */
function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

function asBoolean(value: unknown): boolean | undefined {
  return typeof value === 'boolean' ? value : undefined
}

function oneOf<T>(value: unknown, allowed: ReadonlyArray<T>): T | undefined {
  return allowed.includes(value as T) ? (value as T) : undefined
}
