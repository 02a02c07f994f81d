import { gitBlobOid } from '../../src/main/content/markdown/blob-oid'
import type { PageMetadata, RevisionTree, TreeFile, TreePage } from '../../src/main/content/types'
import type { RevisionSource } from '../../src/main/service/content-index'

const AT = '2024-01-01T00:00:00.000Z'

export interface PageSpec {
  id: string
  title: string
  slug?: string
  type?: TreePage['type']
  body?: string
  href?: string
  metadata?: PageMetadata
  pages?: PageSpec[]
}

/** A revision tree and its blobs from a compact description; bodies are stored by their git blob id. */
export function revision(pages: PageSpec[], files: Array<Pick<TreeFile, 'id' | 'name'>> = []): RevisionSource {
  const blobs = new Map<string, string>()
  const toPage = (spec: PageSpec): TreePage => {
    const type = spec.type ?? 'document'
    const page: TreePage = {
      id: spec.id,
      type,
      title: spec.title,
      slug: spec.slug ?? spec.title.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      metadata: spec.metadata ?? {},
      createdAt: AT,
      updatedAt: AT,
      pages: (spec.pages ?? []).map(toPage),
    }
    if (type === 'document') {
      const body = spec.body ?? ''
      page.bodyOid = gitBlobOid(body)
      blobs.set(page.bodyOid, body)
    }
    if (spec.href !== undefined) page.href = spec.href
    return page
  }
  const tree: RevisionTree = {
    pages: pages.map(toPage),
    files: files.map((f) => ({ ...f, contentType: 'image/png', size: 1, blobOid: gitBlobOid(f.id), createdAt: AT })),
  }
  return { tree, readBlob: (oid) => blobs.get(oid) }
}
