/**
 * `.gitbook/includes/<slug>.md`: where Git Sync keeps a space's reusable content. The file is `title:`
 * front matter, a blank line, then the markdown pages include with `{% include ".gitbook/includes/x.md" %}`:
 *
 *   ---
 *   title: Need help?
 *   ---
 *
 *   Ask in the forum.
 *
 * Unlike a page file, a leading `# H1` is content, not the title.
 */
import yaml from 'js-yaml'
import { dumpYaml, isMap } from '../markdown/front-matter'

export const INCLUDES_FOLDER = '.gitbook/includes/'

export interface IncludeFile {
  /** The front matter's `title:`, or undefined when the file has none (or its front matter is not YAML). */
  title?: string
  /** The markdown after the front matter, without leading blank lines or trailing whitespace. */
  body: string
}

/** Git path of the reusable content named `slug`. */
export function includePath(slug: string): string {
  return `${INCLUDES_FOLDER}${slug}.md`
}

/** The slug of a path under `.gitbook/includes/` (a `.md` file directly in it), or undefined for any other path. */
export function includeSlug(path: string): string | undefined {
  if (!path.startsWith(INCLUDES_FOLDER)) return undefined
  const name = path.slice(INCLUDES_FOLDER.length)
  if (name.includes('/') || !/\.md$/i.test(name) || name.length <= 3) return undefined
  return name.slice(0, -3)
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n((?:[\s\S]*?\r?\n)?)---[ \t]*(?:\r?\n|$)/

/** Reads an include file leniently: a hand-edited file never fails the import, its title is then unknown. */
export function parseIncludeFile(text: string): IncludeFile {
  const match = FRONT_MATTER.exec(text)
  const rest = match ? text.slice(match[0].length) : text.replace(/^\uFEFF/, '')
  const body = rest.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd()
  if (!match) return { body }
  let front: unknown
  try {
    front = yaml.load(match[1], { schema: yaml.CORE_SCHEMA })
  } catch {
    return { body }
  }
  const title = isMap(front) && (typeof front.title === 'string' || typeof front.title === 'number') ? String(front.title).trim() : ''
  return title === '' ? { body } : { title, body }
}

/** The file as Git Sync writes it: `title:` front matter (js-yaml, as page front matter), a blank line, the body, one `\n`. */
export function renderIncludeFile(title: string, body: string): string {
  const text = body.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd()
  return `---\n${dumpYaml({ title })}---\n\n${text === '' ? '' : `${text}\n`}`
}
