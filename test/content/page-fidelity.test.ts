/**
 * Fidelity of the content model (issue 14): a page file that came from Git Sync (or any writer) comes
 * back byte for byte. Property tests over random page files (see support/page-files.ts): first the
 * content model alone (apply a change, render the page), then write -> local service over HTTP -> read,
 * and the Git Sync tree the client mirrors. `CONTENT_SEED=<n>` replays one case; `CONTENT_CASES=<n>`
 * changes how many run.
 */
import { describe, expect, it } from 'vitest'
import { applyContentChanges, parsePageMarkdown, serializePageMarkdown, splitPageMarkdown, type ApplyResult, type ContentChange, type PageUpdateFields, type RevisionTree, type TreePage } from '../../src/main/content'
import { frontMatterEntries } from '../../src/main/content/markdown/front-matter-entries'
import { scanPageFile } from '../../src/main/content/markdown/page-head'
import { pageFile } from './support/page-files'
import { forEachSeed } from './support/random'

let ids = 0
const env = { newId: () => `page${++ids}`, now: '2026-11-24T00:00:00.000Z' }

function bodyOf(result: ApplyResult, page: TreePage): string {
  return page.bodyOid === undefined ? '' : new TextDecoder().decode(result.blobs.get(page.bodyOid))
}

/** The page file the service gives for `page` (the same call its serializer makes). */
function rendered(result: ApplyResult, page: TreePage, bodies: Map<string, string> = new Map()): string {
  const body = page.bodyOid === undefined ? '' : (bodies.get(page.bodyOid) ?? bodyOf(result, page))
  return serializePageMarkdown({ title: page.title, metadata: page.metadata, body, shape: page.shape })
}

const show = (text: string) => JSON.stringify(text)

describe('the content model gives a page file back byte for byte', () => {
  it('insert_page then update_page with any page file: the page renders as the file written (property)', () => {
    forEachSeed(500, (random) => {
      const first = pageFile(random)
      const inserted = applyContentChanges({ pages: [], files: [] }, [{ operation: 'insert_page', title: 'From SUMMARY', document: { markdown: first } }], env)
      const page = inserted.tree.pages[0]
      expect(rendered(inserted, page), `inserted ${show(first)}`).toBe(first)
      // The title is the plain reading of the H1 (or SUMMARY's where the file has none).
      expect(page.title).toBe(parsePageMarkdown(first).title ?? 'From SUMMARY')

      const second = pageFile(random)
      const updated = applyContentChanges(inserted.tree, [{ operation: 'update_page', page: page.id, document: { markdown: second } }], env)
      const after = updated.tree.pages[0]
      const parts = splitPageMarkdown(second)
      // Markdown without front matter leaves the page's metadata alone, so its file gains the old front matter.
      if (parts.hasFrontMatter || Object.keys(page.metadata).length === 0) expect(rendered(updated, after), `updated ${show(second)}`).toBe(second)
      else expect(parsePageMarkdown(rendered(updated, after)).metadata).toEqual(page.metadata)
      if (parts.hasFrontMatter) expect(after.metadata).toEqual(parts.metadata)
    })
  })

  it('a changed title or metadata field rewrites only its own lines: other keys, blank lines, the body and its end stay (property)', () => {
    forEachSeed(300, (random) => {
      const file = pageFile(random)
      const inserted = applyContentChanges({ pages: [], files: [] }, [{ operation: 'insert_page', title: 'From SUMMARY', document: { markdown: file } }], env)
      const page = inserted.tree.pages[0]
      const fields = random.pick<PageUpdateFields>([{ description: 'A new description' }, { description: '' }, { icon: 'rocket' }, { hidden: true }, { hidden: false }, { title: 'Renamed *page*' }, { title: 'Renamed', icon: 'gear' }])
      const updated = applyContentChanges(inserted.tree, [{ operation: 'update_page', page: page.id, ...fields } as ContentChange], env)
      const after = updated.tree.pages[0]
      const text = rendered(updated, after, new Map([[page.bodyOid ?? '', bodyOf(inserted, page)]]))
      const context = `${show(file)} with ${JSON.stringify(fields)} gave ${show(text)}`

      // It reads as the page now is...
      const read = parsePageMarkdown(text)
      expect(read.metadata, context).toEqual(after.metadata)
      const written = parsePageMarkdown(file)
      if (written.title !== undefined) expect(read.title, context).toBe(after.title)
      else expect(read.title, context).toBeUndefined()
      // ...and everything the change did not touch is as written.
      const before = scanPageFile(file)
      const now = scanPageFile(text)
      expect(text.slice(now.bodyStart), context).toBe(file.slice(before.bodyStart))
      if (before.heading && (fields.title === undefined || written.title === undefined)) {
        expect(text.slice(now.heading?.start, now.heading?.end), context).toBe(file.slice(before.heading.start, before.heading.end))
      }
      if (before.frontMatter) {
        const kept = frontMatterEntries(file.slice(before.frontMatter.yamlStart, before.frontMatter.yamlEnd)).filter((entry) => entry.key !== undefined && !['description', 'icon', 'hidden', 'title'].includes(entry.key))
        for (const entry of kept) expect(text, context).toContain(entry.text?.replace(/\r?\n$/, '') ?? '')
      }
      expect(/\r\n/.test(file) ? text.replace(/\r\n/g, '').includes('\n') : text.includes('\r\n'), `line ends mixed: ${context}`).toBe(false)
    })
  })

  it('keeps what the issue names, by example', () => {
    const cases = [
      '# Title\n\nBody.\n\n',
      '# Title\n\n\n\nBody after blank lines.\n',
      '\n# Title\n\nBody.\n',
      '---\nname: gitbook-agent\nmetadata:\n  owner: docs\ndescription: Learn how to automate the update of your OpenAPI specification in GitBook\nhidden: true\n---\n\n# Agent\n\nBody.\n',
      '---\ndescription: >-\n  Folded as written\n  over two lines\n---\n\n# T\n',
      '# LOAD\\_NAME\n\nBody.\n',
      '# $\\_GET\\["a"\\]\n\nBody.\n',
      '# Trailing space \n\nBody.\n',
      '# CRLF\r\n\r\nline one\r\nline two\r\n',
      'A page with no H1.\n\n{% hint style="info" %}\nNote\n{% endhint %}\n',
    ]
    for (const file of cases) {
      const result = applyContentChanges({ pages: [], files: [] }, [{ operation: 'insert_page', title: 'From SUMMARY', document: { markdown: file } }], env)
      expect(rendered(result, result.tree.pages[0]), show(file)).toBe(file)
    }
    const escaped = applyContentChanges({ pages: [], files: [] }, [{ operation: 'insert_page', document: { markdown: '# $\\_GET\\["a"\\] \n' } }], env)
    expect(escaped.tree.pages[0].title).toBe('$_GET["a"]')
  })

  it('writes the form Git Sync writes when the page file was written so: no shape is stored', () => {
    const file = '---\ndescription: Short.\n---\n\n# Install\n\nBody.\n'
    const result = applyContentChanges({ pages: [], files: [] }, [{ operation: 'insert_page', document: { markdown: file } }], env)
    expect(result.tree.pages[0].shape).toBeUndefined()
    expect(rendered(result, result.tree.pages[0])).toBe(file)
  })

  it('a JSON document drops the shape; a revert brings the base page back with its shape', () => {
    const file = '---\ntags: [a]\ndescription: one line\n---\n\n\n# LOAD\\_NAME\n\nBody.\n\n'
    const base = applyContentChanges({ pages: [], files: [] }, [{ operation: 'insert_page', document: { markdown: file } }], env)
    const id = base.tree.pages[0].id
    const json = applyContentChanges(base.tree, [{ operation: 'update_page', page: id, document: { document: { object: 'document', data: {}, nodes: [] } } }] as ContentChange[], env)
    expect(json.tree.pages[0].shape).toBeUndefined()
    const reverted = applyContentChanges(json.tree, [{ operation: 'revert_page', page: id }], { ...env, base: base.tree as RevisionTree })
    expect(reverted.tree.pages[0].shape).toEqual(base.tree.pages[0].shape)
    expect(rendered(base, reverted.tree.pages[0])).toBe(file)
  })
})
