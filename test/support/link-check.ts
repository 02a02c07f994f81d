import fs from 'node:fs'
import path from 'node:path'
import { extractLinks } from '../../src/main/content'
import { resolveTargetPath, splitTarget } from '../../src/main/service/content-index/target-path'

/**
 * A link check of a folder as a reader's disk sees it (case-sensitive, no guessing): every page and
 * file link of a markdown file resolves, from that file's place, to a file that is there (a page link
 * `x` or `x/` to `x.md` or `x/README.md`). URLs and bare anchors are not checked. Used to compare a
 * tree with the mirror of its import: a link broken in the mirror and not in the tree is newly broken.
 */
export interface CheckedLink {
  target: string
  line: number
  broken: boolean
}

/** The page and file links of the markdown file `rel` under `root`, each resolved against the disk. */
export function checkFileLinks(root: string, rel: string): CheckedLink[] {
  const text = fs.readFileSync(path.join(root, ...rel.split('/')), 'utf8')
  const exists = (p: string) => {
    try {
      return fs.statSync(path.join(root, ...p.split('/'))).isFile()
    } catch {
      return false
    }
  }
  return extractLinks(text)
    .filter((link) => link.kind === 'page' || link.kind === 'file')
    .map((link) => {
      const { path: target } = splitTarget(link.target)
      const resolved = resolveTargetPath(rel, target)
      let broken = true
      if (resolved !== undefined) {
        const candidates = resolved === '' || resolved.endsWith('/') ? [`${resolved}README.md`] : link.kind === 'page' && !/\.md$/i.test(resolved) ? [`${resolved}.md`, `${resolved}/README.md`] : [resolved]
        broken = !candidates.some(exists)
      }
      return { target: link.target, line: link.line, broken }
    })
}

/**
 * Links broken in `mirror` that are not broken in `tree`: each page of the tree (`pages`, tree paths)
 * is found in the mirror at `placed(page)`, and its links are compared one by one in order (an import
 * may rewrite a link's target, never add or drop one). A page missing from the mirror counts each of
 * its links that worked in the tree.
 */
export function newlyBrokenLinks(tree: string, mirror: string, pages: readonly string[], placed: (page: string) => string): string[] {
  const found: string[] = []
  for (const page of pages) {
    const before = checkFileLinks(tree, page)
    const at = placed(page)
    if (!fs.existsSync(path.join(mirror, ...at.split('/')))) {
      for (const link of before.filter((l) => !l.broken)) found.push(`${page} (not in the mirror): ${link.target}`)
      continue
    }
    const after = checkFileLinks(mirror, at)
    before.forEach((link, i) => {
      const now = after[i]
      if (!link.broken && (now === undefined || now.broken)) found.push(`${page} -> ${at}:${now?.line ?? '?'}: ${now?.target ?? '(link gone)'} (was ${link.target})`)
    })
  }
  return found
}

/** How many links of these pages of `root` are broken. */
export function brokenLinkCount(root: string, pages: readonly string[]): number {
  return pages.reduce((n, page) => n + checkFileLinks(root, page).filter((l) => l.broken).length, 0)
}
