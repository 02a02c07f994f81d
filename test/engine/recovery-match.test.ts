import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import type { RemoteEntry } from '../../src/main/engine/sync/plan-types'
import { planSpaceSync } from '../../src/main/engine/sync/planner'
import { matchUnjournaled, type RecoveryTexts } from '../../src/main/engine/sync/recovery-match'
import { lineSimilarity, pairBySimilarity } from '../../src/main/engine/workspace/similarity'

/** The pure half of recovery without a journal: the similarity score and the matching rules. */

const page = (id: string, path: string, text: string): RemoteEntry & { text: string } => ({ id, kind: 'page', path, oid: gitBlobOid(Buffer.from(text)), text })
const texts = (local: Record<string, string>, remote: Array<{ id: string; text: string }>): RecoveryTexts => ({
  local: (p) => local[p],
  remote: (id) => remote.find((r) => r.id === id)?.text,
})

describe('lineSimilarity and pairBySimilarity', () => {
  it('scores shared lines over the longer text, ignoring blank lines and trailing spaces', () => {
    expect(lineSimilarity('a\nb\nc\nd\n', 'a\nb\nc\nd\n')).toBe(1)
    expect(lineSimilarity('a\nb\n\nc  \nd\n', 'd\nc\nb\na')).toBe(1)
    expect(lineSimilarity('a\nb\nc\nd\n', 'a\nb\nx\ny\n')).toBe(0.5)
    expect(lineSimilarity('a\na\n', 'a\n')).toBe(0.5)
    expect(lineSimilarity('', '')).toBe(0)
  })

  it('pairs only mutual best matches at or above the threshold; a tie pairs nothing', () => {
    const left = [{ key: 'L', text: 'a\nb\nc\nd\n' }]
    expect(pairBySimilarity(left, [{ key: 'R', text: 'a\nb\nc\nx\n' }])).toEqual([{ left: 'L', right: 'R', score: 0.75 }])
    expect(pairBySimilarity(left, [{ key: 'R', text: 'a\nx\ny\nz\n' }])).toEqual([])
    expect(pairBySimilarity(left, [{ key: 'R1', text: 'a\nb\nc\nx\n' }, { key: 'R2', text: 'a\nb\nc\ny\n' }])).toEqual([])
  })
})

describe('matchUnjournaled', () => {
  const faq = page('faq', 'faq.md', '# FAQ\n\nQuestions.\n\nMore questions.\n')
  const guide = page('guide', 'guide.md', '# Guide\n\nThe guide.\n')

  it('matches by path first, whatever the file holds, then by oid elsewhere, then by similarity', () => {
    const edited = '# FAQ\n\nQuestions.\n\nMore questions.\n\nAn answer.\n'
    const install = page('install', 'guide/install.md', '# Install\n\nRun it.\n\nThen check.\n')
    const local = new Map([
      ['faq.md', gitBlobOid(Buffer.from('# Something else\n'))],
      ['moved-guide.md', guide.oid],
      ['installing.md', gitBlobOid(Buffer.from(`${install.text}Also this.\n`))],
    ])
    const matches = matchUnjournaled([faq, guide, install], [], local, texts({ 'installing.md': `${install.text}Also this.\n`, 'faq.md': edited }, [install]))
    expect(matches.map((m) => [m.entry.id, m.file, m.by])).toEqual([
      ['faq', 'faq.md', 'path'],
      ['guide', 'moved-guide.md', 'oid'],
      ['install', 'installing.md', 'similarity'],
    ])
  })

  it('refuses an oid two files hold, and leaves files the journal names alone', () => {
    const local = new Map([
      ['a.md', guide.oid],
      ['b.md', guide.oid],
      ['faq-copy.md', faq.oid],
    ])
    const journal = [{ id: 'other', kind: 'page' as const, path: 'faq-copy.md', oid: 'x', baseHash: faq.oid }]
    expect(matchUnjournaled([faq, guide], journal, local)).toEqual([])
  })
})

describe('planSpaceSync while recovering', () => {
  it('an edited file at a page path is journaled as that page (recover), not downloaded over, not a conflict', () => {
    const faq = page('faq', 'faq.md', '# FAQ\n')
    const remote = { revision: 'r1', entries: [faq] }
    const local = new Map([['faq.md', gitBlobOid(Buffer.from('# FAQ\n\nEdited.\n'))]])
    const before = planSpaceSync(remote, [], local)
    expect(before.notices).toEqual([{ type: 'path-occupied', id: 'faq', kind: 'page', path: 'faq.md' }])
    const plan = planSpaceSync(remote, [], local, { recover: {} })
    expect(plan.notices).toEqual([])
    expect(plan.actions).toEqual([{ type: 'recover', id: 'faq', kind: 'page', path: 'faq.md', file: 'faq.md', hash: local.get('faq.md'), oid: faq.oid }])
  })

  it("a page's exact text under another name is journaled at the page's place (a move for the push), nothing written there", () => {
    const faq = page('faq', 'faq.md', '# FAQ\n')
    const plan = planSpaceSync({ revision: 'r1', entries: [faq] }, [], new Map([['questions.md', faq.oid]]), { recover: {} })
    expect(plan.actions).toEqual([{ type: 'recover', id: 'faq', kind: 'page', path: 'faq.md', file: 'questions.md', hash: faq.oid, oid: faq.oid }])
  })
})
