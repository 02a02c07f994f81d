import { gitBlobOid } from '../../content/markdown/blob-oid'
import type { RevisionTree, TreePage } from '../../content/types'
import { countWords } from './document-text'

export interface TreeTranslation {
  tree: RevisionTree
  /** Translated page bodies keyed by git blob oid. */
  blobs: Map<string, Uint8Array>
  pageIds: string[]
  words: number
}

const utf8 = new TextEncoder()

/**
 * A translated copy of a revision tree. Pages keep their ids and structure so links between pages and to
 * files still resolve in the copy, and a later run replaces the same pages; files are shared unchanged.
 * Titles, descriptions and bodies go through `translate`; the word count is of the source text.
 */
export async function translateTree(
  tree: RevisionTree,
  readBody: (oid: string) => string | undefined,
  translate: (text: string) => Promise<string>,
  now: string,
): Promise<TreeTranslation> {
  const blobs = new Map<string, Uint8Array>()
  const pageIds: string[] = []
  let words = 0

  const translated = async (text: string) => {
    if (text.trim() === '') return text
    words += countWords(text)
    return translate(text)
  }

  const translatePage = async (page: TreePage): Promise<TreePage> => {
    pageIds.push(page.id)
    const copy: TreePage = { ...page, metadata: { ...page.metadata }, title: await translated(page.title), updatedAt: now, pages: [] }
    if (page.metadata.description !== undefined) copy.metadata.description = await translated(page.metadata.description)
    if (page.bodyOid !== undefined) {
      const body = readBody(page.bodyOid)
      if (body === undefined) throw new Error(`the body of page "${page.title}" (${page.id}) is missing from the store`)
      const bytes = utf8.encode(await translated(body))
      const oid = gitBlobOid(bytes)
      blobs.set(oid, bytes)
      copy.bodyOid = oid
    }
    for (const child of page.pages) copy.pages.push(await translatePage(child))
    return copy
  }

  const pages: TreePage[] = []
  for (const page of tree.pages) pages.push(await translatePage(page))
  return { tree: { pages, files: tree.files.map((file) => ({ ...file })) }, blobs, pageIds, words }
}
