import { applyContentChanges, type ContentChange, type RevisionTree } from '../../../src/main/content'
import { newId } from '../../../src/main/service/store/ids'
import { createSpaceRevision } from '../../../src/main/service/store/revisions'
import type { ServiceStore } from '../../../src/main/service/store/service-store'
import { SpacesRepository } from '../../../src/main/service/store/spaces'
import type { TestService } from '../../support/service'

/** A revision tree built by content batches, as the service applies them, with every blob they made. */
export function revisionBuilder(store: ServiceStore) {
  let tree: RevisionTree = { pages: [], files: [] }
  const blobs = new Map<string, Uint8Array>()
  return {
    apply(changes: ContentChange[]) {
      const result = applyContentChanges(tree, changes, { newId, now: store.now() })
      tree = result.tree
      for (const [oid, bytes] of result.blobs) blobs.set(oid, bytes)
    },
    get tree() {
      return tree
    },
    blobs,
  }
}

export interface ManualSpace {
  spaceId: string
  /** The last section's root page (its subpages all in its answer) and its last subpage. */
  sectionId: string
  lastPageId: string
}

/**
 * A space of `pages` pages laid out as a manual, stored through the service's store: sections of 20 pages
 * (a root page and 19 children, each linking the next page and its picture), ten files a page.
 */
export function seedManualSpace(t: TestService, orgId: string, pages: number): ManualSpace {
  const store = t.service.store
  const space = store.repo(SpacesRepository).create({ orgId, title: `${pages} pages` })
  const built = revisionBuilder(store)
  for (let i = 0; i < pages; i += 20) {
    built.apply(Array.from({ length: Math.min(20, pages - i) }, (_, k): ContentChange => {
      const document = { markdown: `# Page ${i + k}\n\nSee [the next page](page-${(i + k + 1) % pages}.md) and ![a picture](.gitbook/assets/image-${i + k}.png).\n` }
      return k === 0 ? { operation: 'insert_page', ref: 'section', document } : { operation: 'insert_page', into: 'section', document }
    }))
  }
  const files = pages * 10
  for (let i = 0; i < files; i += 800) {
    built.apply(Array.from({ length: Math.ceil(Math.min(800, files - i) / 20) }, (_, c): ContentChange => ({
      operation: 'insert_files',
      files: Array.from({ length: Math.min(20, files - i - c * 20) }, (_, k) => ({ name: `image-${i + c * 20 + k}.png`, contentType: 'image/png', base64: Buffer.from(`png ${i + c * 20 + k}`).toString('base64') })),
    })))
  }
  createSpaceRevision(store, space.id, built.tree, built.blobs, [])
  const lastSection = built.tree.pages[built.tree.pages.length - 1]
  return { spaceId: space.id, sectionId: lastSection.id, lastPageId: lastSection.pages[lastSection.pages.length - 1]?.id ?? lastSection.id }
}
