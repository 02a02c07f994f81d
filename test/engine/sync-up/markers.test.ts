import { describe, expect, it } from 'vitest'
import { findMarkers, markerKey, stripMarkers } from '../../../src/main/engine/comments/markers'
import { batchChanges } from '../../../src/main/engine/push/batches'
import type { PlannedChange } from '../../../src/main/engine/push/push-types'
import { mergeTitles, subjectFor } from '../../../src/main/engine/push/subject'
import { isIgnoredName, isIgnoredPath } from '../../../src/main/engine/watch/ignore'

describe('comment markers', () => {
  it('reads comments, replies and resolves; code is text', () => {
    const text = [
      '# Page',
      '',
      '<!-- comment: Is this still true for v2? -->',
      'Inline <!-- reply abc_123: Yes,\nchecked --> here.',
      '<!-- resolve XyZ-9 -->',
      '<!-- a plain HTML comment -->',
      '<!-- comment:    -->',
      '```md',
      '<!-- comment: an example -->',
      '```',
      'and `<!-- comment: inline code -->` too',
    ].join('\n')
    expect(findMarkers(text).map((m) => [m.kind, m.commentId, m.text])).toEqual([
      ['comment', undefined, 'Is this still true for v2?'],
      ['reply', 'abc_123', 'Yes,\nchecked'],
      ['resolve', 'XyZ-9', ''],
    ])
  })

  it('stripping a marker written as its own line or paragraph gives the file back as it was', () => {
    const cases: Array<[string, string]> = [
      ['A\n\n<!-- comment: m -->\n\nB\n', 'A\n\nB\n'],
      ['A\n\n<!-- comment: m -->\n', 'A\n'],
      ['A\n<!-- comment: m -->\nB\n', 'A\nB\n'],
      ['A\n\n<!-- comment: m -->\nB\n', 'A\n\nB\n'],
      ['<!-- comment: m -->\n\nA\n', 'A\n'],
      ['A <!-- comment: m --> B\n', 'A B\n'],
      ['A\n<!-- comment: m -->', 'A'],
      ['A\n\n<!-- comment: m -->\n<!-- comment: n -->\n', 'A\n'],
      ['A\n\n<!-- comment: m\nmore -->\n\nB\n', 'A\n\nB\n'],
      ['A\n\n```\n<!-- comment: code -->\n```\n', 'A\n\n```\n<!-- comment: code -->\n```\n'],
    ]
    for (const [input, output] of cases) expect(stripMarkers(input), JSON.stringify(input)).toBe(output)
  })

  it('strips only the markers asked for', () => {
    const text = 'A\n<!-- comment: one -->\n<!-- comment: two -->\nB\n'
    const [one] = findMarkers(text)
    expect(stripMarkers(text, [one])).toBe('A\n<!-- comment: two -->\nB\n')
  })

  it('a marker has one identity per page and text', () => {
    const [m] = findMarkers('<!-- comment: Same -->')
    const [again] = findMarkers('x\n\n<!--   comment:   Same   -->\n')
    expect(markerKey('s', 'p', m)).toBe(markerKey('s', 'p', again))
    expect(markerKey('s', 'p', m)).not.toBe(markerKey('s', 'q', m))
  })
})

describe('batches and subjects', () => {
  const change = (n: number, extra: Partial<PlannedChange> = {}): PlannedChange => ({
    key: `k${n}`,
    change: { operation: 'update_page', page: `p${n}` },
    entries: [],
    uses: [],
    ...extra,
  })

  it('cuts at 50 and keeps a ref with the changes that use it when it can', () => {
    const changes = Array.from({ length: 120 }, (_, i) => change(i))
    expect(batchChanges(changes).map((b) => b.length)).toEqual([50, 50, 20])
    const withRef = [...Array.from({ length: 49 }, (_, i) => change(i)), change(49, { defines: 'r' }), change(50, { uses: ['r'] })]
    const batches = batchChanges(withRef)
    expect(batches.map((b) => b.length)).toEqual([49, 2])
  })

  it('a revert_page from another revision than the batch\'s reverts starts a new batch (the service restores one revision per request)', () => {
    const revert = (n: number, revision?: string) => change(n, { change: { operation: 'revert_page', page: `p${n}`, ...(revision ? { revision } : {}) } })
    expect(batchChanges([revert(0), change(1), revert(2), revert(3, 'rev-a'), change(4), revert(5, 'rev-a'), revert(6)]).map((b) => b.map((c) => c.key))).toEqual([
      ['k0', 'k1', 'k2'],
      ['k3', 'k4', 'k5'],
      ['k6'],
    ])
  })

  it('names the pages touched, shortened to fit the 100-character limit', () => {
    expect(subjectFor(mergeTitles([], ['Install', 'Getting started', 'Install']))).toBe('Edit Install, Getting started')
    const many = Array.from({ length: 30 }, (_, i) => `A fairly long page title ${i}`)
    const subject = subjectFor(many)
    expect(subject.length).toBeLessThanOrEqual(100)
    expect(subject).toMatch(/^Edit A fairly long page title 0, .* and \d+ more$/)
  })
})

describe('ignored files', () => {
  it('skips swap, backup, lock and temp files, .git and Quire temp files', () => {
    for (const name of ['.install.md.swp', 'install.md~', '.#install.md', '#install.md#', '4913', '.quire-tmp-abc-x.md', '.git', 'x.md.tmp', '.~lock.x.md#']) {
      expect(isIgnoredName(name), name).toBe(true)
    }
    for (const name of ['install.md', 'README.md', 'image.png', 'notes.markdown']) expect(isIgnoredName(name), name).toBe(false)
    expect(isIgnoredPath('.git/objects/ab')).toBe(true)
    expect(isIgnoredPath('guide/install.md')).toBe(false)
  })
})
