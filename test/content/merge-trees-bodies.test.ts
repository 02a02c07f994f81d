/**
 * mergeTrees with a body reader: a page both sides edited merges field by
 * field and its body block by block; the merged body comes back as a blob.
 */
import { describe, expect, it } from 'vitest'
import { findPage, gitBlobOid, mergeTrees, type RevisionTree, type TreePage } from '../../src/main/content'
import { sampleTree, T1 } from './support/trees'

const BASE_BODY = 'One.\n\nTwo.\n\nThree.'

function withBody(tree: RevisionTree, id: string, body: string, change: Partial<TreePage> = {}): RevisionTree {
  const copy = structuredClone(tree)
  Object.assign(findPage(copy, id) as TreePage, { bodyOid: gitBlobOid(body), updatedAt: T1 }, change)
  return copy
}

describe('mergeTrees with page bodies', () => {
  const bodies = new Map([BASE_BODY, 'One!\n\nTwo.\n\nThree.', 'One.\n\nTwo.\n\nThree!', 'One?\n\nTwo.\n\nThree.'].map((body) => [gitBlobOid(body), body]))
  const readBody = (oid: string) => bodies.get(oid)
  const base = withBody(sampleTree(), 'faq', BASE_BODY)

  it('merges bodies edited in different blocks, and metadata keys and title changed on either side', () => {
    const main = withBody(base, 'faq', 'One!\n\nTwo.\n\nThree.', { title: 'Questions', metadata: { description: 'Questions', icon: 'gear' } })
    const branch = withBody(base, 'faq', 'One.\n\nTwo.\n\nThree!', { metadata: { description: 'All questions', icon: 'circle-question' } })
    const merged = mergeTrees(base, main, branch, { readBody })
    const page = findPage(merged.tree, 'faq') as TreePage
    const expected = 'One!\n\nTwo.\n\nThree!'
    expect(merged.conflicts).toEqual([])
    expect(page).toMatchObject({ title: 'Questions', metadata: { description: 'All questions', icon: 'gear' }, bodyOid: gitBlobOid(expected) })
    expect(merged.blobs).toEqual(new Map([[gitBlobOid(expected), new TextEncoder().encode(expected)]]))
  })

  it('reports a page whose same block both changed, keeping the branch version of that block', () => {
    const main = withBody(base, 'faq', 'One!\n\nTwo.\n\nThree.')
    const branch = withBody(base, 'faq', 'One?\n\nTwo.\n\nThree.')
    const merged = mergeTrees(base, main, branch, { readBody })
    expect(merged.conflicts).toEqual(['faq'])
    expect(findPage(merged.tree, 'faq')?.bodyOid).toBe(gitBlobOid('One?\n\nTwo.\n\nThree.'))
    expect(merged.blobs).toBeUndefined()
  })

  it('without a body reader, or when a body is not stored, a page both edited is a conflict and keeps the branch version', () => {
    const main = withBody(base, 'faq', 'One!\n\nTwo.\n\nThree.')
    const branch = withBody(base, 'faq', 'One.\n\nTwo.\n\nThree!')
    for (const merged of [mergeTrees(base, main, branch), mergeTrees(base, main, branch, { readBody: () => undefined })]) {
      expect(merged.conflicts).toEqual(['faq'])
      expect(findPage(merged.tree, 'faq')?.bodyOid).toBe(gitBlobOid('One.\n\nTwo.\n\nThree!'))
    }
  })
})
