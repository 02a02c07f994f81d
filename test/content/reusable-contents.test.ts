import { describe, expect, it } from 'vitest'
import { applyContentChanges, diffTrees, gitBlobOid, keepIdentities, mergeTrees, parseGitSyncConfig, revisionFromGitSync, type RevisionTree, type TreePage } from '../../src/main/content'
import { includeSlug, parseIncludeFile, renderIncludeFile } from '../../src/main/content/gitsync/include-file'

const bytes = (text: string) => new TextEncoder().encode(text)
const page = (patch: Partial<TreePage>): TreePage => ({ id: 'p', type: 'document', title: 'Home', slug: 'readme', metadata: {}, bodyOid: 'a', createdAt: '', updatedAt: '', pages: [], ...patch })

describe('an include file (.gitbook/includes/<slug>.md)', () => {
  it('reads its title from front matter (a leading # H1 is content) and renders as Git Sync writes it', () => {
    const text = '---\ntitle: Need help?\n---\n\n# Support\n\nAsk.\n'
    expect(parseIncludeFile(text)).toEqual({ title: 'Need help?', body: '# Support\n\nAsk.' })
    expect(renderIncludeFile('Need help?', '# Support\n\nAsk.')).toBe(text)
    // A title YAML must quote is quoted; a long one stays on its line as page front matter does.
    expect(parseIncludeFile(renderIncludeFile('a: b # c', 'x')).title).toBe('a: b # c')
    expect(parseIncludeFile('No front matter.\n')).toEqual({ body: 'No front matter.' })
    expect(parseIncludeFile('---\ntitle: [unclosed\n---\n\nBody\n')).toEqual({ body: 'Body' })
    expect(renderIncludeFile('Empty', '')).toBe('---\ntitle: Empty\n---\n\n')
  })

  it('is a .md file directly in .gitbook/includes/', () => {
    expect(includeSlug('.gitbook/includes/need-help-join-the-soda-co....md')).toBe('need-help-join-the-soda-co...')
    expect(includeSlug('.gitbook/includes/sub/x.md')).toBeUndefined()
    expect(includeSlug('.gitbook/includes/x.txt')).toBeUndefined()
    expect(includeSlug('.gitbook/assets/x.md')).toBeUndefined()
  })
})

describe('reusable contents in a revision', () => {
  const include = '---\ntitle: Shared\n---\n\nShared text.\n'
  const files = new Map([
    ['SUMMARY.md', bytes('# Table of contents\n\n* [Home](README.md)\n')],
    ['README.md', bytes('# Home\n\n{% include ".gitbook/includes/shared.md" %}\n')],
    ['.gitbook/includes/shared.md', bytes(include)],
    ['.gitbook/includes/nested/other.md', bytes('x\n')],
  ])
  let n = 0
  const env = { newId: () => `id${++n}`, now: 'now' }

  it('a Git import keeps each include whole as a blob (its oid the file\'s) and notes what it cannot keep', () => {
    const { tree, blobs, notes } = revisionFromGitSync(files, parseGitSyncConfig(undefined), env)
    expect(tree.reusableContents).toEqual([{ id: expect.any(String), title: 'Shared', slug: 'shared', blobOid: gitBlobOid(include) }])
    expect(new TextDecoder().decode(blobs.get(gitBlobOid(include)))).toBe(include)
    expect(notes).toEqual(['.gitbook/includes/nested/other.md: not imported: reusable content is a .md file directly in .gitbook/includes/'])
    // Imported again, the same file keeps its id.
    const again = revisionFromGitSync(files, parseGitSyncConfig(undefined), env).tree
    keepIdentities(again, tree)
    expect(again.reusableContents?.[0].id).toBe(tree.reusableContents?.[0].id)
  })

  it('a content batch keeps them, a diff lists their changes, a merge keeps main\'s unless the branch changed them', () => {
    const contents = [{ id: 'rc1', title: 'Shared', slug: 'shared', blobOid: 'o1' }]
    const base: RevisionTree = { pages: [page({})], files: [], reusableContents: contents }
    const edited = applyContentChanges(base, [{ operation: 'insert_page', document: { markdown: '# New\n' } }], { newId: () => 'n1', now: 'now' }).tree
    expect(edited.reusableContents).toEqual(contents)
    expect(diffTrees(base, edited).reusableContents).toBeUndefined()

    const reimported: RevisionTree = { ...base, reusableContents: [{ ...contents[0], blobOid: 'o2' }, { id: 'rc2', title: 'New', slug: 'new', blobOid: 'o3' }] }
    expect(diffTrees(base, reimported).reusableContents).toEqual({ added: ['rc2'], removed: [], changed: ['rc1'] })
    expect(diffTrees(reimported, { ...base, reusableContents: undefined }).reusableContents).toEqual({ added: [], removed: ['rc1', 'rc2'], changed: [] })
    expect(mergeTrees(base, reimported, edited).tree.reusableContents).toEqual(reimported.reusableContents)
    expect(mergeTrees({ ...base, reusableContents: undefined }, { ...base, reusableContents: undefined }, base).tree.reusableContents).toEqual(contents)
    expect(mergeTrees(base, base, { ...base, reusableContents: undefined }).tree).not.toHaveProperty('reusableContents')
  })
})
