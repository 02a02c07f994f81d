/**
 * Editing front matter as it was written. When a page's metadata changes, only
 * the keys that changed are rewritten (as Git Sync writes them); every other
 * line stays as the writer left it: keys Quire does not model (`tags`,
 * `metadata`, `name`...), comments, a one-line description that Git Sync would
 * have folded, the order of the keys.
 */
import { dumpYaml, frontMatterObject, isMap, loadYaml, metadataFromObject, METADATA_KEYS, sameMetadata, type YamlMap } from './front-matter'
import type { PageMetadata } from '../types'

/** One top-level entry: a key with its value, and the exact text it was written as (none when new). */
interface Entry {
  key?: string
  value?: unknown
  text?: string
}

const RANK = new Map<string, number>(METADATA_KEYS.map((key, index) => [key, index]))

/**
 * `yamlText` (front matter between its fences, as written) with the keys Quire
 * reads set to `metadata`, and `title:` set to `title` when one is given.
 * Line breaks of new lines are `eol`. '' when nothing is left to write.
 */
export function editFrontMatter(yamlText: string, metadata: PageMetadata, options: { title?: string; eol: string }): string {
  const wanted = frontMatterObject(metadata)
  const written = new Set<string>()
  const out: Entry[] = []
  for (const entry of frontMatterEntries(yamlText)) {
    const { key } = entry
    if (key === 'title' && options.title !== undefined) {
      written.add(key)
      out.push(readsAsTitle(entry.value, options.title) ? entry : { key, value: options.title })
    } else if (key !== undefined && RANK.has(key)) {
      written.add(key)
      if (sameMetadata(metadataFromObject({ [key]: entry.value }), metadataFromObject({ [key]: wanted[key] }))) out.push(entry)
      else if (wanted[key] !== undefined) out.push({ key, value: wanted[key] })
    } else {
      out.push(entry)
    }
  }
  for (const [key, value] of Object.entries(wanted)) {
    if (written.has(key)) continue
    out.splice(placeOf(out, key), 0, { key, value })
  }
  const text = out.map((entry) => entry.text ?? dumpYaml({ [entry.key ?? '']: entry.value }).replace(/\n/g, options.eol)).join('')
  return text.trim() === '' ? '' : text
}

/**
 * Where a new metadata key goes: right after the last key it follows in Git
 * Sync's order, else right before the first it precedes, else at the end.
 */
function placeOf(entries: Entry[], key: string): number {
  const rank = RANK.get(key) ?? Infinity
  const ranked = (entry: Entry) => (entry.key === undefined ? undefined : RANK.get(entry.key))
  const after = entries.findLastIndex((entry) => (ranked(entry) ?? Infinity) < rank)
  if (after !== -1) return after + 1
  const before = entries.findIndex((entry) => (ranked(entry) ?? -Infinity) > rank)
  return before === -1 ? entries.length : before
}

function readsAsTitle(value: unknown, title: string): boolean {
  return (typeof value === 'string' || typeof value === 'number') && String(value).replace(/\s*[\r\n]+\s*/g, ' ').trim() === title
}

/**
 * The top-level entries of front matter in the order written, each with its
 * exact text; comments and blank lines between keys are entries without a key.
 * Where the text cannot be cut that way faithfully (flow mappings, anchors
 * shared between keys...), the entries carry values only and are written anew.
 */
export function frontMatterEntries(yamlText: string): Entry[] {
  const whole = loadYaml(yamlText)
  const map: YamlMap = isMap(whole) ? whole : {}
  return cutEntries(yamlText, map) ?? Object.entries(map).map(([key, value]) => ({ key, value }))
}

function cutEntries(yamlText: string, whole: YamlMap): Entry[] | undefined {
  const entries: Entry[] = []
  let current: Entry | undefined
  let between = ''
  for (const line of yamlText.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    if (/^[ \t]*\r?\n?$/.test(line) || line.startsWith('#')) {
      // Blank lines and comments belong to the key above only when its value goes on below them.
      between += line
    } else if (/^[ \t]/.test(line)) {
      if (!current) return undefined
      current.text += between + line
      between = ''
    } else {
      if (between !== '') entries.push({ text: between })
      between = ''
      current = { text: line }
      entries.push(current)
    }
  }
  if (between !== '') entries.push({ text: between })
  return checkedEntries(entries, whole)
}

/** Each cut must read as exactly one key of the whole, in the same order with the same value. */
function checkedEntries(entries: Entry[], whole: YamlMap): Entry[] | undefined {
  const keys = Object.keys(whole)
  let next = 0
  try {
    for (const entry of entries) {
      const value = loadYaml(entry.text ?? '')
      if (value === null || value === undefined) continue
      if (!isMap(value) || Object.keys(value).length !== 1) return undefined
      const key = Object.keys(value)[0]
      if (key !== keys[next] || JSON.stringify(value[key]) !== JSON.stringify(whole[key])) return undefined
      entry.key = key
      entry.value = value[key]
      next++
    }
  } catch {
    return undefined
  }
  return next === keys.length ? entries : undefined
}
