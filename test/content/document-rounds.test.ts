/**
 * A document converted in rounds (deferred-refs.ts: first no target resolves and the targets are listed,
 * then the revision's answers as a table) equals one converted with the resolver called directly, on
 * every page of the Git Sync corpus and on pages whose links resolve to pages, files and anchors, in
 * shapes that depend on the answer (a `{% file %}` of a file is a file block, of a page a link).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { ContentRef } from '@gitbook/api'
import { describe, expect, it } from 'vitest'
import { convertDocument, documentJsonInRounds } from '../../src/main/content/markdown/document/deferred-refs'
import { markdownToDocument } from '../../src/main/content/markdown/document/to-document'
import { GITSYNC_CORPUS } from '../support/gitsync-corpus'

/** A stand-in for a revision's resolver: `.md` targets are pages (with their anchor), images and PDFs files. */
function resolveTarget(target: string): ContentRef | undefined {
  if (/^[a-z]+:|^#|^\//i.test(target)) return undefined
  const [file, anchor] = target.split('#')
  if (/\.(png|jpe?g|gif|svg|pdf)$/i.test(file)) return { kind: 'file', file: `file:${file}` }
  if (!file.endsWith('.md')) return undefined
  return anchor ? { kind: 'anchor', page: `page:${file}`, anchor } : { kind: 'page', page: `page:${file}` }
}

let rounds = 0
const inRounds = async (body: string) =>
  JSON.parse(
    (
      await documentJsonInRounds(body, resolveTarget, async (job) => {
        rounds++
        return convertDocument(job)
      })
    ).toString('utf8'),
  )

function corpusPages(): string[] {
  const files: string[] = []
  const walk = (dir: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.endsWith('.md')) files.push(full)
    }
  }
  walk(GITSYNC_CORPUS)
  return files
}

describe('a document converted in rounds', () => {
  it('equals the direct conversion on every page of the corpus', async () => {
    const pages = corpusPages()
    expect(pages.length).toBeGreaterThan(50)
    let resolving = 0
    for (const file of pages) {
      const body = fs.readFileSync(file, 'utf8')
      const direct = markdownToDocument(body, { resolveTarget })
      rounds = 0
      expect(await inRounds(body), file).toEqual(direct)
      if (rounds === 2) resolving++
    }
    // The corpus links between its pages: the second round ran, not only the first.
    expect(resolving).toBeGreaterThan(10)
  })

  it('equals it where the answer decides a block: files, pages, anchors, references, nested containers', async () => {
    const body = [
      '# Links',
      '[a page](./other.md), [an anchor](other.md#part), [here](#local), [out](https://example.com), <https://example.org>',
      '![a picture](../.gitbook/assets/pic.png) and ![remote](https://example.com/x.png)',
      '[ref][r] and ![img ref][i]',
      '[r]: sub/page.md#deep',
      '[i]: ./shot.jpg',
      '{% file src="../.gitbook/assets/manual.pdf" %}',
      '{% file src="./other.md" %}',
      '{% content-ref url="other.md" %}\n[other.md](other.md)\n{% endcontent-ref %}',
      '{% hint style="info" %}\n{% content-ref url="sub/page.md" %}\n[page](sub/page.md)\n{% endcontent-ref %}\n\n{% file src="doc.pdf" %}\n{% endhint %}',
      '> {% file src="quoted.pdf" %}',
      '<figure><img src="../.gitbook/assets/fig.png" alt="fig"><figcaption><p>A figure</p></figcaption></figure>',
      '- [in a list](./list.md#item)',
    ].join('\n\n')
    rounds = 0
    expect(await inRounds(body)).toEqual(markdownToDocument(body, { resolveTarget }))
    expect(rounds).toBe(2)
  })

  it('takes one round where nothing resolves', async () => {
    const body = '# Plain\n\n[out](https://example.com) and [here](#top)\n'
    rounds = 0
    expect(await inRounds(body)).toEqual(markdownToDocument(body, { resolveTarget }))
    expect(rounds).toBe(1)
  })
})
