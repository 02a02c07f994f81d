/** Small hand-built trees for example-based tests. */
import type { ApplyEnv, RevisionTree, TreePage } from '../../../src/main/content'
import { gitBlobOid, slugify } from '../../../src/main/content'

export const T0 = '2024-01-01T00:00:00.000Z'
export const T1 = '2024-02-02T00:00:00.000Z'

export function page(id: string, title: string, pages: TreePage[] = [], extra: Partial<TreePage> = {}): TreePage {
  return { id, type: 'document', title, slug: slugify(title), metadata: {}, bodyOid: gitBlobOid(`${title} body`), createdAt: T0, updatedAt: T0, pages, ...extra }
}

/** README (home), guide/{install, advanced/{tuning}}, faq. */
export function sampleTree(): RevisionTree {
  return {
    pages: [
      page('home', 'Home'),
      page('guide', 'Guide', [page('install', 'Install'), page('advanced', 'Advanced', [page('tuning', 'Tuning')])]),
      page('faq', 'FAQ', [], { metadata: { description: 'Questions', icon: 'circle-question' } }),
    ],
    files: [],
  }
}

export function env(extra: Partial<ApplyEnv> = {}): ApplyEnv {
  let n = 0
  return { newId: () => `new${++n}`, now: T1, ...extra }
}

/** A 3x2 PNG (header only, which is all `imageDimensions` reads). */
export function pngBytes(): Uint8Array {
  const bytes = new Uint8Array(33)
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
  new DataView(bytes.buffer).setUint32(16, 3)
  new DataView(bytes.buffer).setUint32(20, 2)
  return bytes
}
