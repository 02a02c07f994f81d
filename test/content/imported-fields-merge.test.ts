import { describe, expect, it } from 'vitest'
import { applyContentChanges, mergeTrees, type RevisionTree, type TreePage } from '../../src/main/content'

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

describe("a revision's tags (.gitbook/tags.yaml, set by a Git import) through edits and merges", () => {
  const tags = [{ slug: 'beta', label: 'Beta', color: 'default', icon: 'flask' }]
  it('a content batch keeps them; a merge keeps main\'s unless the branch changed them', () => {
    const base: RevisionTree = { ...tree(page({})), tags }
    const edited = applyContentChanges(base, [{ operation: 'insert_page', document: { markdown: '# New\n' } }], { newId: () => 'n1', now: 'now' }).tree
    expect(edited.tags).toEqual(tags)
    const reimported: RevisionTree = { ...base, tags: [...tags, { slug: 'new', label: 'New', color: '$primary' }] }
    expect(mergeTrees(base, reimported, edited).tree.tags).toEqual(reimported.tags)
    expect(mergeTrees({ ...base, tags: undefined }, { ...base, tags: undefined }, base).tree.tags).toEqual(tags)
  })
})
