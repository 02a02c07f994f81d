import { describe, expect, it } from 'vitest'
import { ContentError, gitBlobOid, parsePageMarkdown, serializePageMarkdown } from '../../src/main/content'
import { body, metadata, title } from './support/generators'
import { forEachSeed } from './support/random'

describe('gitBlobOid', () => {
  it('matches git hash-object', () => {
    expect(gitBlobOid('hello\n')).toBe('ce013625030ba8dba906f756967f9e9ca394464a')
    expect(gitBlobOid('')).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391')
    expect(gitBlobOid('héllo wörld 🎉\n')).toBe('d9f6d4fe618d41d11af8d6af0d13815d9d91c0b5')
    expect(gitBlobOid(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBe('aa860abb474c16b64e6a58a44d70206090fc2c56')
  })

  it('hashes strings as UTF-8', () => {
    expect(gitBlobOid('é')).toBe(gitBlobOid(new TextEncoder().encode('é')))
  })
})

describe('parsePageMarkdown', () => {
  it('reads front matter, the leading H1 and the exact body', () => {
    const source = [
      '---',
      'description: >-',
      '  A long description',
      '  folded over lines',
      'icon: gear',
      'unknownKey: ignored',
      'layout:',
      '  width: wide',
      '  cover:',
      '    visible: false',
      '    size: full',
      '  title:',
      '    visible: true',
      '---',
      '',
      '# Getting *started*',
      '',
      '',
      '{% hint style="info" %}',
      '* asterisk bullet with snake_case',
      '{% endhint %}',
      '',
      '<figure><img src="../.gitbook/assets/image (8).png" alt=""><figcaption></figcaption></figure>',
      '',
      '$$math$$   ',
      '',
      '',
    ].join('\n')
    expect(parsePageMarkdown(source)).toEqual({
      title: 'Getting started',
      metadata: {
        description: 'A long description folded over lines',
        icon: 'gear',
        layout: { width: 'wide', cover: false, coverSize: 'full', title: true },
      },
      body: [
        '{% hint style="info" %}',
        '* asterisk bullet with snake_case',
        '{% endhint %}',
        '',
        '<figure><img src="../.gitbook/assets/image (8).png" alt=""><figcaption></figcaption></figure>',
        '',
        '$$math$$',
      ].join('\n'),
    })
  })

  it('has no title when the first block is not an H1', () => {
    expect(parsePageMarkdown('Intro text\n\n# Later heading\n')).toEqual({ metadata: {}, body: 'Intro text\n\n# Later heading' })
    expect(parsePageMarkdown('## Sub\n\ntext')).toEqual({ metadata: {}, body: '## Sub\n\ntext' })
  })

  it('accepts a setext H1 and a front matter title as fallback', () => {
    expect(parsePageMarkdown('Title\n=====\n\nbody\n')).toEqual({ title: 'Title', metadata: {}, body: 'body' })
    expect(parsePageMarkdown('---\ntitle: Shared snippet\n---\n\nbody\n')).toEqual({ title: 'Shared snippet', metadata: {}, body: 'body' })
    expect(parsePageMarkdown('---\ntitle: Ignored\n---\n\n# Heading wins\n')).toEqual({ title: 'Heading wins', metadata: {}, body: '' })
  })

  it('keeps the indentation of the first body line', () => {
    expect(parsePageMarkdown('# T\n\n\n    code\n').body).toBe('    code')
  })

  it('accepts layout switches as bare booleans and ignores values of the wrong type', () => {
    const parsed = parsePageMarkdown('---\nhidden: yes\ncoverY: high\nlayout:\n  outline: false\n  width: huge\n---\n# T\n')
    expect(parsed.metadata).toEqual({ layout: { outline: false } })
  })

  it('rejects invalid YAML with a ContentError', () => {
    expect(() => parsePageMarkdown('---\ndescription: [unclosed\n---\n# T\n')).toThrow(ContentError)
    expect(() => parsePageMarkdown('---\ndescription: [unclosed\n---\n# T\n')).toThrow(/Invalid YAML front matter/)
    expect(() => parsePageMarkdown('---\n- a list\n---\n# T\n')).toThrow(/expected a YAML mapping/)
  })

  it('strips a byte order mark and reads CRLF files', () => {
    expect(parsePageMarkdown('\uFEFF# Title\r\n\r\nbody\r\n')).toEqual({ title: 'Title', metadata: {}, body: 'body' })
  })
})

describe('serializePageMarkdown', () => {
  it('writes front matter like Git Sync: key order, folded long strings, layout visibility objects', () => {
    const text = serializePageMarkdown({
      title: 'Install',
      metadata: {
        layout: { width: 'default', cover: true, coverSize: 'hero', title: true, outline: false },
        hidden: true,
        icon: 'rocket',
        description: 'This description is long enough that js-yaml folds it over more than one line of the file.',
        coverY: 0,
        cover: '.gitbook/assets/cover.png',
      },
      body: 'Body text',
    })
    expect(text).toBe(
      [
        '---',
        'description: >-',
        '  This description is long enough that js-yaml folds it over more than one line',
        '  of the file.',
        'icon: rocket',
        'cover: .gitbook/assets/cover.png',
        'coverY: 0',
        'hidden: true',
        'layout:',
        '  width: default',
        '  cover:',
        '    visible: true',
        '    size: hero',
        '  title:',
        '    visible: true',
        '  outline:',
        '    visible: false',
        '---',
        '',
        '# Install',
        '',
        'Body text',
        '',
      ].join('\n'),
    )
  })

  it('writes a page without metadata or body as just its title line', () => {
    expect(serializePageMarkdown({ title: 'Empty', metadata: {}, body: '' })).toBe('# Empty\n')
    expect(serializePageMarkdown({ title: 'Empty', metadata: { hidden: undefined }, body: '\n\n' })).toBe('# Empty\n')
  })

  it('escapes a title only when markdown would read it differently', () => {
    expect(serializePageMarkdown({ title: 'C# and snake_case', metadata: {}, body: '' })).toBe('# C# and snake_case\n')
    const tricky = ['*Bold*', 'Ends with #', '&amp;', 'a `b`', '[x](y.md)']
    for (const t of tricky) expect(parsePageMarkdown(serializePageMarkdown({ title: t, metadata: {}, body: '' })).title).toBe(t)
  })
})

describe('page file round trip (property)', () => {
  it('parse(serialize(page)) == page and serialize(parse(text)) == text', () => {
    forEachSeed(400, (random) => {
      const page = { title: title(random), metadata: metadata(random), body: body(random) }
      const text = serializePageMarkdown(page)
      expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true)
      expect(parsePageMarkdown(text)).toEqual(page)
      expect(serializePageMarkdown(parsePageMarkdown(text))).toBe(text)
    })
  })
})
