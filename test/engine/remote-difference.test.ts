import type { RevisionFile, RevisionPage, RevisionSemanticChange } from '@gitbook/api'
import { describe, expect, it } from 'vitest'
import { keptTreeOf, MAX_CHAIN, patchKeptTree, planDifference, walkContinues, type ChainStep } from '../../src/main/engine/sync/remote-difference'

/** Issue 29: the pure decision "by difference or whole", and the kept tree's patch. */

const doc = (id: string, children: RevisionPage[] = []) => ({ id, type: 'document', kind: 'sheet', title: id, slug: id, path: id, git: { oid: `oid-${id}`, path: `${id}.md` }, pages: children, markdown: `# ${id}\n` }) as unknown as RevisionPage
const file = (id: string, oid = `oid-${id}`) => ({ id, name: `${id}.png`, contentType: 'image/png', downloadURL: `https://files.example/${id}`, size: 1, git: { oid, path: `.gitbook/assets/${id}.png` } }) as unknown as RevisionFile
const kept = { revision: 'r0', pages: [doc('a', [doc('b')]), doc('c')], files: [file('f')] }
const edited = (id: string, attributes: Record<string, unknown> = { document: {} }) => ({ type: 'page_edited', page: { id, type: 'document', title: id }, attributes }) as unknown as RevisionSemanticChange
const step = (id: string, parent: string, changes: RevisionSemanticChange[], more = 0): ChainStep => ({ id, parents: [parent], changes, more })

describe('planDifference', () => {
  it('a chain back to the synced revision of document edits and file edits: by difference, naming what to read', () => {
    const fileEdited = { type: 'file_edited', file: { id: 'f', name: 'f.png', contentType: 'image/png', downloadURL: 'x' }, attributes: { downloadURL: {}, size: {} } } as unknown as RevisionSemanticChange
    const fileCreated = { type: 'file_created', file: { id: 'g', name: 'g.png', contentType: 'image/png', downloadURL: 'y' } } as unknown as RevisionSemanticChange
    const chain = [step('r2', 'r1', [edited('b'), fileCreated]), step('r1', 'r0', [edited('c', { document: {}, description: {} }), edited('b'), fileEdited])]
    expect(planDifference({ syncedRevision: 'r0', kept, chain })).toEqual({ kind: 'difference', pages: ['b', 'c'], files: ['g', 'f'] })
  })

  it('whole: no kept tree of the synced revision, a broken or long chain, more changes than given, or a change that moves other files', () => {
    const one = [step('r1', 'r0', [edited('b')])]
    expect(planDifference({ syncedRevision: undefined, kept, chain: one }).kind).toBe('whole')
    expect(planDifference({ syncedRevision: 'r0', kept: undefined, chain: one }).kind).toBe('whole')
    expect(planDifference({ syncedRevision: 'r0', kept: { ...kept, revision: 'other' }, chain: one }).kind).toBe('whole')
    expect(planDifference({ syncedRevision: 'r0', kept, chain: [] }).kind).toBe('whole')
    // The walk stopped short of the synced revision (cap reached, or a first parent elsewhere).
    expect(planDifference({ syncedRevision: 'r0', kept, chain: [step('r2', 'r1', [edited('b')])] })).toEqual({ kind: 'whole', reason: 'chain too long or broken' })
    expect(planDifference({ syncedRevision: 'r0', kept, chain: [step('r2', 'rX', []), step('r1', 'r0', [])] })).toEqual({ kind: 'whole', reason: 'broken chain' })
    const long = Array.from({ length: MAX_CHAIN + 1 }, (_, i) => step(`r${MAX_CHAIN + 1 - i}`, `r${MAX_CHAIN - i}`, [edited('b')]))
    expect(planDifference({ syncedRevision: 'r0', kept, chain: long })).toEqual({ kind: 'whole', reason: 'chain too long' })
    expect(planDifference({ syncedRevision: 'r0', kept, chain: [step('r1', 'r0', [edited('b')], 3)] }).kind).toBe('whole')
    for (const change of [
      { type: 'page_created', page: { id: 'n', type: 'document', title: 'n' } },
      { type: 'page_deleted', page: { id: 'b', type: 'document', title: 'b' } },
      { type: 'page_moved', page: { id: 'b', type: 'document', title: 'b' }, parent: {} },
      { type: 'page_edited', page: { id: 'b', type: 'document', title: 'b' }, attributes: { title: {} } },
      { type: 'page_edited', page: { id: 'b', type: 'document', title: 'b' }, attributes: { slug: {} } },
      { type: 'page_edited', page: { id: 'zz', type: 'document', title: 'zz' }, attributes: { document: {} } },
      { type: 'file_edited', file: { id: 'f', name: 'f.png', contentType: 'image/png', downloadURL: 'x' }, attributes: { name: {} } },
      { type: 'file_deleted', file: { id: 'f', name: 'f.png', contentType: 'image/png', downloadURL: 'x' } },
      { type: 'variables_edited', variables: {} },
      { type: 'reusable_content_edited', reusableContent: { id: 'r' }, attributes: { document: {} } },
      { type: 'tag_created', tag: { id: 't' } },
    ]) {
      expect(planDifference({ syncedRevision: 'r0', kept, chain: [step('r1', 'r0', [change as unknown as RevisionSemanticChange])] }).kind, change.type).toBe('whole')
    }
  })

  it('the walk goes on while short, by difference so far, and not yet at the synced revision', () => {
    expect(walkContinues([step('r2', 'r1', [edited('b')])], 'r0')).toBe(true)
    expect(walkContinues([step('r1', 'r0', [edited('b')])], 'r0')).toBe(false)
    expect(walkContinues([step('r2', 'r1', [edited('b')], 1)], 'r0')).toBe(false)
    expect(walkContinues([step('r2', 'r1', [{ type: 'page_created', page: { id: 'n', type: 'document', title: 'n' } } as unknown as RevisionSemanticChange])], 'r0')).toBe(false)
    expect(walkContinues(Array.from({ length: MAX_CHAIN }, (_, i) => step(`r${9 - i}`, `r${8 - i}`, [])), 'r0')).toBe(false)
  })
})

describe('the kept tree', () => {
  it('keeps no page content; a patch puts the pages and files read in place, a new file last', () => {
    const tree = keptTreeOf({ id: 'r0', pages: kept.pages, files: kept.files })
    expect(JSON.stringify(tree)).not.toContain('markdown')
    const patched = patchKeptTree(tree, 'r1', new Map([['b', { git: { oid: 'new-b', path: 'a/b.md' } }]]), [file('f', 'new-f'), file('g')])
    expect(patched.revision).toBe('r1')
    const b = (patched.pages[0] as unknown as { pages: Array<{ git: { oid: string } }> }).pages[0]
    expect(b.git.oid).toBe('new-b')
    expect((patched.pages[1] as unknown as { git: { oid: string } }).git.oid).toBe('oid-c')
    expect(patched.files.map((f) => [f.id, f.git?.oid])).toEqual([['f', 'new-f'], ['g', 'oid-g']])
    expect(() => patchKeptTree(tree, 'r1', new Map([['b', {}]]), [])).toThrow(/git/)
  })
})
