import type { RevisionFile, RevisionPage } from '@gitbook/api'
import yaml from 'js-yaml'
import type { FrontMatterChange } from '../../../shared/contract'
import type { ApiGateway } from '../gateway/api-gateway'

/*
 * The parts of a change request's diff beyond page texts: the table of contents (SUMMARY.md) of each
 * side, the front matter keys a page's markdown changes, and previews of the images it adds.
 */

/**
 * A revision's table of contents as Git Sync writes SUMMARY.md: `* [Title](path.md)` entries, children
 * indented two spaces, top-level groups as `## Title`. Two sides' outlines differ when the change
 * request reorders, nests, adds, removes or retitles pages.
 */
export function outline(pages: readonly RevisionPage[]): string {
  const lines = ['# Table of contents', '']
  const visit = (list: readonly RevisionPage[], depth: number) => {
    for (const page of list) {
      const indent = '  '.repeat(depth)
      if (page.type === 'group' && depth === 0) lines.push('', `## ${page.title}`, '')
      else {
        const git = 'git' in page ? page.git : undefined
        const href = git?.path ?? ('href' in page && typeof page.href === 'string' ? page.href : undefined) ?? ''
        lines.push(`${indent}* [${page.title}](${href})`)
      }
      if ('pages' in page && Array.isArray(page.pages)) visit(page.pages as RevisionPage[], page.type === 'group' && depth === 0 ? 0 : depth + 1)
    }
  }
  visit(pages, 0)
  return lines.join('\n').replace(/\n{3,}/g, '\n\n') + '\n'
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/

/** The front matter of a page file as key → YAML text (`{}` when it has none or it does not parse). */
function frontMatterOf(markdown: string): Map<string, string> {
  const found = FRONT_MATTER.exec(markdown)
  const out = new Map<string, string>()
  if (!found) return out
  try {
    const data = yaml.load(found[1])
    if (data && typeof data === 'object' && !Array.isArray(data)) {
      for (const [key, value] of Object.entries(data)) out.set(key, yaml.dump(value, { flowLevel: 1, lineWidth: 100 }).trimEnd())
    }
  } catch {
    // A front matter that does not parse is still in the text diff, as text.
  }
  return out
}

/** The front matter keys set, changed or removed between two versions of a page file, in file order. */
export function frontMatterChanges(before: string, after: string): FrontMatterChange[] {
  const was = frontMatterOf(before)
  const now = frontMatterOf(after)
  const out: FrontMatterChange[] = []
  for (const key of new Set([...now.keys(), ...was.keys()])) {
    const a = was.get(key)
    const b = now.get(key)
    if (a !== b) out.push({ key, ...(a !== undefined ? { before: a } : {}), ...(b !== undefined ? { after: b } : {}) })
  }
  return out
}

/** Images larger than this are listed without a preview (the diff is kept whole in the cache). */
const PREVIEW_MAX_BYTES = 1_000_000

/**
 * An image file as a `data:` URL for the diff's preview, read through the gateway's file download (its
 * download policy, without the token; redirects followed, a few). Undefined for anything that is not
 * an image, too large, or cannot be read: the file is still listed.
 */
export async function imagePreview(gateway: ApiGateway, file: RevisionFile): Promise<string | undefined> {
  const type = file.contentType ?? ''
  if (!type.startsWith('image/') || !file.downloadURL || (file.size ?? 0) > PREVIEW_MAX_BYTES) return undefined
  try {
    let url = new URL(file.downloadURL)
    for (let hop = 0; hop < 4; hop++) {
      const response = await gateway.fetchFile(url, { stream: false })
      const next = response.headers.get('location')
      if (response.status >= 300 && response.status < 400 && next) {
        url = new URL(next, url)
        continue
      }
      if (!response.ok) return undefined
      const bytes = Buffer.from(await response.arrayBuffer())
      if (bytes.length > PREVIEW_MAX_BYTES) return undefined
      // SVG can hold scripts: shown through <img> it cannot run them, and the type is the file's own.
      return `data:${type};base64,${bytes.toString('base64')}`
    }
  } catch {
    // No preview: the file is listed by name, type and path all the same.
  }
  return undefined
}
