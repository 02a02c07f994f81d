/**
 * The block-level page merge on hand-made pages: which units merge, which
 * conflict, and what a conflict reports.
 */
import { describe, expect, it } from 'vitest'
import { mergePageBodies, mergePageFiles } from '../../src/main/content'

const PAGE = [
  '---',
  'description: About it',
  'icon: gear',
  '---',
  '',
  '# Guide',
  '',
  'Intro paragraph.',
  '',
  '* first',
  '* second',
  '* third',
  '',
  '{% hint style="info" %}',
  'Hint one.',
  '',
  'Hint two.',
  '{% endhint %}',
  '',
  '```js',
  'const a = 1',
  'const b = 2',
  'const c = 3',
  '```',
  '',
  'Last paragraph.',
  '',
].join('\n')

const edit = (text: string, ...pairs: Array<[string, string]>): string => pairs.reduce((out, [from, to]) => out.replace(from, to), text)

describe('mergePageFiles', () => {
  it('merges edits of different list items, GitBook inner blocks, code lines and front matter keys', () => {
    const main = edit(PAGE, ['* first', '* FIRST'], ['Hint one.', 'Hint ONE.'], ['const a = 1', 'const a = 10'], ['icon: gear', 'icon: rocket'])
    const branch = edit(PAGE, ['* third', '* THIRD'], ['Hint two.', 'Hint TWO.'], ['const c = 3', 'const c = 30'], ['description: About it', 'description: About this'], ['style="info"', 'style="warning"'])
    const expected = edit(main, ['* third', '* THIRD'], ['Hint two.', 'Hint TWO.'], ['const c = 3', 'const c = 30'], ['description: About it', 'description: About this'], ['style="info"', 'style="warning"'])
    expect(mergePageFiles(PAGE, main, branch)).toEqual({ text: expected, conflicts: [] })
  })

  it('keeps both paragraphs when both writers append one at the end', () => {
    const main = `${PAGE}\nFrom main.\n`
    const branch = `${PAGE}\nFrom branch.\n`
    expect(mergePageFiles(PAGE, main, branch)).toEqual({ text: `${PAGE}\nFrom main.\n\nFrom branch.\n`, conflicts: [] })
  })

  it('reports the paragraph both changed, with the three versions and its line, and keeps the side asked for', () => {
    const main = edit(PAGE, ['Intro paragraph.', 'Intro from main.'], ['Last paragraph.', 'Last, edited.'])
    const branch = edit(PAGE, ['Intro paragraph.', 'Intro from branch.'])
    const result = mergePageFiles(PAGE, main, branch)
    expect(result.conflicts).toEqual([{ part: 'body', line: 8, base: 'Intro paragraph.', main: 'Intro from main.', branch: 'Intro from branch.' }])
    expect(result.text).toBe(main)
    expect(mergePageFiles(PAGE, main, branch, { keep: 'branch' }).text).toBe(edit(PAGE, ['Intro paragraph.', 'Intro from branch.'], ['Last paragraph.', 'Last, edited.']))
  })

  it('reports a title both renamed as the title, and two values of one new front matter key as a front matter conflict', () => {
    const main = edit(PAGE, ['# Guide', '# Main guide'], ['icon: gear\n', 'icon: gear\nhidden: true\n'])
    const branch = edit(PAGE, ['# Guide', '# Branch guide'], ['description: About it\n', 'hidden: false\ndescription: About it\n'])
    const result = mergePageFiles(PAGE, main, branch)
    expect(result.conflicts.map((c) => [c.part, c.line])).toEqual([['frontMatter', 1], ['title', 7]])
    expect(result.text).toBe(main)
  })

  it('conflicts on two changes of neighbouring lines of one block, as git does', () => {
    const main = edit(PAGE, ['const a = 1', 'const a = 10'])
    const branch = edit(PAGE, ['const b = 2', 'const b = 20'])
    expect(mergePageFiles(PAGE, main, branch).conflicts).toHaveLength(1)
  })

  it('merges one writer deleting a block and the other deleting the next one', () => {
    const main = edit(PAGE, ['Intro paragraph.\n\n', ''])
    const branch = edit(PAGE, ['* first\n* second\n* third\n\n', ''])
    expect(mergePageFiles(PAGE, main, branch)).toEqual({ text: edit(main, ['* first\n* second\n* third\n\n', '']), conflicts: [] })
  })

  it('keeps CRLF line ends and a byte order mark byte for byte', () => {
    const base = `\uFEFF${PAGE.replace(/\n/g, '\r\n')}`
    const main = edit(base, ['Intro paragraph.', 'Intro, main.'])
    const branch = edit(base, ['Hint two.', 'Hint, branch.'])
    expect(mergePageFiles(base, main, branch)).toEqual({ text: edit(main, ['Hint two.', 'Hint, branch.']), conflicts: [] })
  })

  it('merges bodies, whose GitBook tags share a paragraph with their text', () => {
    const base = 'Intro.\n\n{% hint style="info" %}\nInside.\n{% endhint %}\n\nOutro.'
    const main = edit(base, ['Intro.', 'Intro!'], ['style="info"', 'style="danger"'])
    const branch = edit(base, ['Inside.', 'Inside!'], ['Outro.', 'Outro!'])
    expect(mergePageBodies(base, main, branch)).toEqual({ text: 'Intro!\n\n{% hint style="danger" %}\nInside!\n{% endhint %}\n\nOutro!', conflicts: [] })
  })
  it('carries an edit of a paragraph to where the other side moved it, whichever side moved it', () => {
    const base = '# T\n\nAlpha para.\n\nBeta para.\n\nGamma para.\n\nDelta para.\n'
    const moved = '# T\n\nBeta para.\n\nGamma para.\n\nAlpha para.\n\nDelta para.\n'
    const edited = '# T\n\nAlpha para, edited.\n\nBeta para.\n\nGamma para.\n\nDelta para, edited.\n'
    const expected = '# T\n\nBeta para.\n\nGamma para.\n\nAlpha para, edited.\n\nDelta para, edited.\n'
    expect(mergePageFiles(base, moved, edited)).toEqual({ text: expected, conflicts: [] })
    expect(mergePageFiles(base, edited, moved)).toEqual({ text: expected, conflicts: [] })
  })

  it('carries edits along a reorder of whole blocks (a hint and a code block swapped, both edited) and keeps edits elsewhere', () => {
    const hint = '{% hint style="info" %}\nHint one.\n\nHint two.\n{% endhint %}\n\n'
    const code = '```js\nconst a = 1\nconst b = 2\nconst c = 3\n```\n\n'
    const main = PAGE.replace(hint + code, code + hint)
    const branch = edit(PAGE, ['Hint two.', 'Hint TWO.'], ['const b = 2', 'const b = 20'], ['Intro paragraph.', 'Intro, edited.'])
    expect(main).not.toBe(PAGE)
    const expected = edit(main, ['Hint two.', 'Hint TWO.'], ['const b = 2', 'const b = 20'], ['Intro paragraph.', 'Intro, edited.'])
    expect(mergePageFiles(PAGE, main, branch)).toEqual({ text: expected, conflicts: [] })
    expect(mergePageFiles(PAGE, branch, main)).toEqual({ text: expected, conflicts: [] })
  })

  it('both wrote a page from an empty base: one holding the other gives the longer once; two versions of one text conflict; unrelated texts go side by side', () => {
    const whole = '# FAQ\n\nFirst.\n\nSecond.\n'
    // The service's rendering of an emptied page is held by the writer's whole page: the title once.
    expect(mergePageFiles('', '# FAQ\n', whole)).toEqual({ text: whole, conflicts: [] })
    expect(mergePageFiles('', whole, '# FAQ\n')).toEqual({ text: whole, conflicts: [] })
    expect(mergePageFiles('', '# FAQ\n\nSecond.\n', whole).text).toBe(whole)
    const other = '# FAQ\n\nFirst, rewritten.\n\nSecond.\n'
    const both = mergePageFiles('', whole, other)
    expect(both.conflicts).toHaveLength(1)
    expect(both.text).toBe(whole)
    expect(mergePageBodies('Intro.\n', 'Intro.\n\nMain adds this.\n', 'Intro.\n\nBranch adds that.\n')).toEqual({ text: 'Intro.\n\nMain adds this.\n\nBranch adds that.\n', conflicts: [] })
  })
  it('both made the same change of a paragraph and one side also added one next to it: the change once, with the addition (seed 26061)', () => {
    // The writer's merge with main, sent to the change request, holds main's change and the writer's new
    // paragraph; merged with main from the change request's base it met main's same change. Taken for a
    // conflict, the change request could never be updated from main nor merged.
    const base = '# FAQ\n\nQuestions.\n'
    const main = '# FAQ\n\nQuestions, theirs.\n'
    const branch = '# FAQ\n\nQuestions, theirs.\n\nLocal addition.\n'
    expect(mergePageFiles(base, main, branch)).toEqual({ text: branch, conflicts: [] })
    expect(mergePageFiles(base, branch, main)).toEqual({ text: branch, conflicts: [] })
    expect(mergePageFiles(base, main, '# FAQ\n\nLocal addition.\n\nQuestions, theirs.\n')).toEqual({ text: '# FAQ\n\nLocal addition.\n\nQuestions, theirs.\n', conflicts: [] })
    // Not when the longer side brings back a block the other removed, nor when one side deleted what the other changed.
    expect(mergePageFiles('# FAQ\n\nQ.\n\nGone.\n', '# FAQ\n\nQ, theirs.\n', '# FAQ\n\nQ, theirs.\n\nGone.\n').conflicts).toHaveLength(1)
    expect(mergePageFiles(base, '# FAQ\n', branch).conflicts).toHaveLength(1)
  })
})
