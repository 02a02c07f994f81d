import { relativePath, resolveRelativePath, rewriteLinks } from '../../content'

/**
 * Links of a page file written where the space folder gives a file another name than the server does.
 * On a disk that folds case, `Image.png` and `image.png` cannot both be in `.gitbook/assets/`: one of
 * them gets a local name (`image (2).png`), and a page's links to it are written to that name, so each
 * link still opens the bytes the server's link names. Push sends such a link as the file's id
 * (`/files/<id>`, engine/push/asset-uploads.ts), so the service keeps its own name.
 */
export interface LocalLinks {
  /** The page's path on the server (its `git.path`): its links are relative to it. */
  page: string
  /** Server path -> local path of the files the space folder names otherwise. */
  files: ReadonlyMap<string, string>
}

/** `markdown` of the page at `localPage` with its links to renamed files pointing at their local names; anchors kept. */
export function localizeLinks(markdown: string, localPage: string, links: LocalLinks): string {
  if (links.files.size === 0) return markdown
  return rewriteLinks(markdown, (link) => {
    const hash = link.target.indexOf('#')
    const [target, anchor] = hash === -1 ? [link.target, ''] : [link.target.slice(0, hash), link.target.slice(hash)]
    if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/')) return undefined
    const server = resolveRelativePath(links.page, decoded(target.replace(/^<|>$/g, '')))
    const local = server === undefined ? undefined : links.files.get(server)
    return local === undefined ? undefined : relativePath(localPage, local) + anchor
  })
}

function decoded(target: string): string {
  try {
    return decodeURI(target)
  } catch {
    return target
  }
}
