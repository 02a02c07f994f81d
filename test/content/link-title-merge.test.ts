import { describe, expect, it } from 'vitest'
import { mergeTrees, type RevisionTree, type TreePage } from '../../src/main/content'

const page = (patch: Partial<TreePage>): TreePage => ({ id: 'p', type: 'document', title: 'Toolbar on published sites', slug: 'toolbar', metadata: {}, bodyOid: 'a', createdAt: '', updatedAt: '', pages: [], ...patch })
const tree = (p: TreePage): RevisionTree => ({ pages: [p], files: [] })

describe('a page link title (SUMMARY.md `[Title](path "Link title")`) through a merge', () => {
  it('keeps the side that changed it, when the other side changed the page otherwise', () => {
    const base = tree(page({}))
    const main = tree(page({ linkTitle: 'Toolbar' }))
    const branch = tree(page({ bodyOid: 'b' }))
    // The service merges with its blob store at hand (without it, a page both sides edited keeps the branch's).
    const merged = mergeTrees(base, main, branch, { readBody: () => '' }).tree.pages[0]
    expect(merged).toMatchObject({ linkTitle: 'Toolbar', bodyOid: 'b' })
    expect(mergeTrees(main, base, main, { readBody: () => '' }).tree.pages[0].linkTitle).toBeUndefined()
  })
})
