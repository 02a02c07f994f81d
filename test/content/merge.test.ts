import { describe, expect, it } from 'vitest'
import { diffTrees, findPage, flattenPages, mergeTrees, type RevisionTree, type TreeFile, type TreePage } from '../../src/main/content'
import { page, sampleTree, T1 } from './support/trees'

function edit(tree: RevisionTree, id: string, change: Partial<TreePage>): RevisionTree {
  const copy = structuredClone(tree)
  Object.assign(findPage(copy, id) as TreePage, change, { updatedAt: T1 })
  return copy
}

function remove(tree: RevisionTree, id: string): RevisionTree {
  const copy = structuredClone(tree)
  const strip = (pages: TreePage[]): TreePage[] => pages.filter((p) => p.id !== id).map((p) => ({ ...p, pages: strip(p.pages) }))
  copy.pages = strip(copy.pages)
  return copy
}

function ids(pages: TreePage[]): unknown[] {
  return pages.map((p) => (p.pages.length > 0 ? [p.id, ids(p.pages)] : p.id))
}

function file(id: string, name: string, blobOid = 'b'): TreeFile {
  return { id, name, contentType: 'image/png', size: 1, blobOid, createdAt: T1 }
}

describe('diffTrees', () => {
  it('lists added, removed and changed pages with what changed', () => {
    const base = sampleTree()
    let other = edit(base, 'faq', { title: 'Questions', bodyOid: 'new' })
    other = remove(other, 'tuning')
    other.pages.push(page('extra', 'Extra'))
    other.pages.splice(0, 0, other.pages.splice(2, 1)[0]) // faq first
    const moved = findPage(other, 'install') as TreePage
    other = remove(other, 'install')
    other.pages.push(moved)
    other.files.push(file('f1', 'a.png'))

    expect(diffTrees(base, other)).toEqual({
      added: ['extra'],
      removed: ['tuning'],
      changed: [
        { id: 'faq', changes: ['title', 'body', 'position'] },
        { id: 'install', changes: ['parent'] },
      ],
      files: { added: ['f1'], removed: [], changed: [] },
    })
    expect(diffTrees(base, base)).toEqual({ added: [], removed: [], changed: [], files: { added: [], removed: [], changed: [] } })
  })
})

describe('mergeTrees', () => {
  const base = sampleTree()

  it('takes each side’s changes and lists pages changed differently on both', () => {
    const main = edit(edit(base, 'faq', { title: 'Main FAQ' }), 'home', { bodyOid: 'same' })
    const branch = edit(edit(edit(base, 'faq', { title: 'Branch FAQ' }), 'install', { bodyOid: 'branch-body' }), 'home', { bodyOid: 'same' })
    const { tree, conflicts } = mergeTrees(base, main, branch)
    expect(findPage(tree, 'faq')?.title).toBe('Branch FAQ')
    expect(findPage(tree, 'install')?.bodyOid).toBe('branch-body')
    expect(findPage(tree, 'home')?.bodyOid).toBe('same')
    expect(conflicts).toEqual(['faq'])
  })

  it('lets an edit beat a delete, on either side, moving orphans up', () => {
    const main = remove(base, 'advanced') // deletes advanced and tuning
    const branch = edit(edit(base, 'tuning', { title: 'Tuned' }), 'faq', { bodyOid: 'x' })
    const deletedOnBranch = remove(base, 'faq')
    expect(ids(mergeTrees(base, main, branch).tree.pages)).toEqual(['home', ['guide', ['install', 'tuning']], 'faq'])
    expect(findPage(mergeTrees(base, branch, deletedOnBranch).tree, 'faq')?.bodyOid).toBe('x')
    expect(ids(mergeTrees(base, main, base).tree.pages)).toEqual(['home', ['guide', ['install']], 'faq'])
  })

  it('keeps additions from both sides, ordered by main then by branch position', () => {
    const main = structuredClone(base)
    main.pages.splice(1, 0, page('m1', 'Main one'))
    const branch = structuredClone(base)
    branch.pages.splice(2, 0, page('b1', 'Branch one'))
    branch.pages.unshift(page('b0', 'Branch zero'))
    ;(findPage(branch, 'guide') as TreePage).pages.push(page('b2', 'Main one')) // a child, so no slug clash
    expect(ids(mergeTrees(base, main, branch).tree.pages)).toEqual(['b0', 'home', 'm1', ['guide', ['install', ['advanced', ['tuning']], 'b2']], 'b1', 'faq'])
  })

  it('gives pages added on both sides with one slug distinct slugs', () => {
    const main = structuredClone(base)
    main.pages.push(page('m1', 'New'))
    const branch = structuredClone(base)
    branch.pages.push(page('b1', 'New'))
    const slugs = mergeTrees(base, main, branch).tree.pages.map((p) => p.slug)
    expect(slugs).toEqual(['home', 'guide', 'faq', 'new', 'new-2'])
  })

  it('follows the branch’s moves and breaks cycles made by crossing moves', () => {
    const move = (tree: RevisionTree, id: string, into: string): RevisionTree => {
      const moved = structuredClone(findPage(tree, id) as TreePage)
      const copy = remove(tree, id)
      ;(findPage(copy, into) as TreePage).pages.push(moved)
      return copy
    }
    const main = move(base, 'faq', 'home')
    const branch = move(base, 'home', 'faq')
    const { tree, conflicts } = mergeTrees(base, main, branch)
    expect(ids(tree.pages)).toEqual([['home', ['faq']], ['guide', ['install', ['advanced', ['tuning']]]]])
    expect(conflicts).toEqual([])
    expect(flattenPages(tree)).toHaveLength(6)
    expect(ids(mergeTrees(base, base, move(base, 'install', 'faq')).tree.pages)).toEqual(['home', ['guide', [['advanced', ['tuning']]]], ['faq', ['install']]])
  })

  it('merges files the same way', () => {
    const withFiles: RevisionTree = { ...base, files: [file('a', 'a.png'), file('b', 'b.png'), file('c', 'c.png')] }
    const main: RevisionTree = { ...withFiles, files: [file('a', 'a.png', 'main'), file('c', 'c.png'), file('m', 'm.png')] }
    const branch: RevisionTree = { ...withFiles, files: [file('x', 'x.png'), file('a', 'a.png', 'branch'), file('b', 'b.png', 'edited'), file('c', 'c.png')] }
    const { tree, conflicts } = mergeTrees(withFiles, main, branch)
    expect(tree.files.map((f) => `${f.id}:${f.blobOid}`)).toEqual(['x:b', 'a:branch', 'b:edited', 'c:b', 'm:b'])
    expect(conflicts).toEqual(['a'])
  })
})
