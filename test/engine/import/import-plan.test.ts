import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import { differenceReasons } from '../../../src/main/engine/import/fidelity'
import { DEFAULT_GITSYNC_CONFIG as DEFAULT_CONFIG, parseGitSyncConfig as parseGitBookConfig } from '../../../src/main/content/gitsync/config'
import { planImport, type SourceFile } from '../../../src/main/engine/import/import-plan'
import { summaryNotes } from '../../../src/main/engine/import/summary-structure'

/** The pure halves of `quire import`: .gitbook.yaml, what to copy, what SUMMARY.md holds that the content API cannot, why a page differs. */

const file = (path: string, text = `# ${path}\n`, size?: number): SourceFile => ({ path, size: size ?? Buffer.byteLength(text), hash: gitBlobOid(text) })

describe('.gitbook.yaml', () => {
  it("reads root and structure, with Git Sync's defaults", () => {
    expect(parseGitBookConfig(undefined)).toEqual(DEFAULT_CONFIG)
    expect(parseGitBookConfig('')).toEqual(DEFAULT_CONFIG)
    expect(parseGitBookConfig('root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc/SUMMARY.md\n')).toEqual({ root: 'docs', readme: 'intro.md', summary: 'toc/SUMMARY.md' })
  })
  it('refuses bad YAML, a root leaving the tree, and a structure that is not a mapping', () => {
    expect(() => parseGitBookConfig('root: [')).toThrow(/not valid YAML/)
    expect(() => parseGitBookConfig('root: ../x')).toThrow(/root "..\/x" leaves the repository/)
    expect(() => parseGitBookConfig('root: /etc')).toThrow(/leaves the repository/)
    expect(() => parseGitBookConfig('structure: readme.md')).toThrow(/structure must be a mapping/)
    expect(() => parseGitBookConfig('- a\n- b')).toThrow(/must be a mapping/)
  })
})

describe('planImport', () => {
  const summary = '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n* [Gone](gone.md)\n'
  const files = [
    file('README.md'),
    file('SUMMARY.md', summary),
    file('guide/README.md'),
    file('guide/install.md'),
    file('LICENSE.md'),
    file('.gitbook/assets/linked.png', 'png'),
    file('.gitbook/assets/unlinked.png', 'png2'),
    file('.gitbook/assets/huge.png', 'x', 2 * 1024 * 1024),
    file('.gitbook/includes/snippet.md'),
    file('.gitbook/tags.yaml', 'tags: []\n'),
    file('.gitbook.yaml', ''),
    file('scripts/build.sh', 'echo\n'),
  ]

  it('copies the pages SUMMARY.md lists, SUMMARY.md, and every asset and include; notes the rest with reasons', () => {
    const plan = planImport({ config: DEFAULT_CONFIG, files, summary, target: new Map(), skipped: [{ path: 'link.md', reason: 'a symbolic link (never followed)' }] })
    expect(plan.copies.map((c) => c.to).sort()).toEqual(
      ['.gitbook/assets/huge.png', '.gitbook/assets/linked.png', '.gitbook/assets/unlinked.png', '.gitbook/includes/snippet.md', 'README.md', 'SUMMARY.md', 'guide/README.md', 'guide/install.md'].sort(),
    )
    expect(plan.pages).toEqual(['README.md', 'guide/README.md', 'guide/install.md'])
    const notes = plan.notes.map((n) => `${n.kind} ${n.path}`)
    expect(notes).toEqual(
      expect.arrayContaining(['not-a-page LICENSE.md', 'missing gone.md', 'too-large .gitbook/assets/huge.png', 'not-content .gitbook/tags.yaml', 'not-content scripts/build.sh', 'skipped link.md']),
    )
    expect(notes).not.toContain('not-content .gitbook.yaml')
    expect(plan.copies.every((c) => !c.identical)).toBe(true)
  })

  it('skips files the space folder already holds byte for byte (a resumed import)', () => {
    const target = new Map([
      ['guide/install.md', file('guide/install.md').hash],
      ['README.md', 'another hash'],
    ])
    const plan = planImport({ config: DEFAULT_CONFIG, files, summary, target })
    expect(plan.copies.filter((c) => c.identical).map((c) => c.to)).toEqual(['guide/install.md'])
  })

  it("copies .gitbook.yaml's readme and summary as README.md and SUMMARY.md, and says so", () => {
    const toc = '* [Intro](intro.md)\n* [Page](page.md)\n'
    const plan = planImport({ config: { root: '', readme: 'intro.md', summary: 'toc.md' }, files: [file('intro.md'), file('page.md'), file('toc.md', toc)], summary: toc, target: new Map() })
    expect(plan.copies.map((c) => `${c.from} -> ${c.to}`)).toEqual(['intro.md -> README.md', 'page.md -> page.md', 'toc.md -> SUMMARY.md'])
    expect(plan.notes.filter((n) => n.kind === 'moved').map((n) => n.path)).toEqual(['intro.md', 'toc.md'])
  })
})

describe('summaryNotes', () => {
  it('names groups (with their page counts), separators, URL and anchor entries', () => {
    const summary = [
      '# Table of contents',
      '',
      '* [Home](README.md)',
      '',
      '## <a href="#start" id="start"></a>Get started',
      '',
      '* [Install](start/install.md)',
      '  * [Linux](start/linux.md)',
      '* [Section](start/install.md#requirements)',
      '',
      '***',
      '',
      '* [Status](https://status.example.com)',
      '* [FAQ](faq.md)',
      '',
    ].join('\n')
    expect(summaryNotes(summary, 'SUMMARY.md').map((n) => `${n.kind}: ${n.reason}`)).toEqual([
      'group: group "Get started": the content API cannot create groups; its 2 pages go to the top level in order',
      'anchor-entry: entry "Section" (start/install.md#requirements) links a section of a page, not a page; not imported',
      'link-entry: entry "Status" (https://status.example.com): the content API cannot create link pages; not imported',
      'separator: separator at line 11 (before "Status"): the content model has no separators; the pages after it follow on',
    ])
  })
})

describe('differenceReasons', () => {
  it('is empty for the same text', () => {
    expect(differenceReasons('# A\n\nText\n', '# A\n\nText\n')).toEqual([])
  })
  it('names each kind of difference', () => {
    expect(differenceReasons('# A\r\n\r\nText\r\n', '# A\n\nText\n')).toEqual(['CRLF line endings returned as LF'])
    expect(differenceReasons('# A\n\nText\n\n', '# A\n\nText\n')).toEqual(['trailing blank lines trimmed (2 line breaks at the end, returned 1)'])
    expect(differenceReasons('\n# A\n\nText\n', '# A\n\nText\n')).toEqual(['leading blank lines removed (1, returned 0)'])
    expect(differenceReasons('# A\n\n\nText\n', '# A\n\nText\n')).toEqual(['blank lines after the H1 collapsed (2, returned 1)'])
    expect(differenceReasons('# LOAD\\_NAME \n\nText\n', '# LOAD_NAME\n\nText\n')).toEqual(['the H1 is returned as "# LOAD_NAME" (written "# LOAD\\\\_NAME ")'])
    expect(differenceReasons('Text\n', '# Title\n\nText\n')).toEqual(['an H1 "# Title" was added (the file has none)'])
    expect(differenceReasons('---\ndescription: D\ntags: [a]\n---\n\n# A\n', '---\ndescription: D\n---\n\n# A\n')).toEqual(['front matter keys dropped: tags'])
    expect(differenceReasons('---\ndescription: D\n---\n\n# A\n', '---\ndescription: >-\n  D\n---\n\n# A\n')).toEqual(['description folded differently (written "D", returned ">-")'])
    expect(differenceReasons('# A\n\n![](../.gitbook/assets/x.png)\n', '# A\n\n![](.gitbook/assets/x.png)\n')).toEqual(['relative links rewritten for the place the page comes back at'])
    expect(differenceReasons('# A\n\nOne\nTwo\n', '# A\n\nOne\nThree\n')).toEqual(['the body differs from its line 4: "Two" returned as "Three"'])
  })
})
