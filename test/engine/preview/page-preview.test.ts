import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { previewHtml } from '../../../src/main/engine/preview/render-preview'
import { previewSpacePage, PreviewRefused } from '../../../src/main/engine/preview/page-preview'
import { PNG } from '../sync-up/support/workspace'

/**
 * Issue 28: the preview reads the page from its space folder and its images from the folder's
 * `.gitbook/assets`, and nothing else: no `..` out, no symbolic link out, no other folder's files.
 */

describe('a page previewed from its space folder', () => {
  let root: string
  let folder: string
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-preview-'))
    folder = path.join(root, 'space')
    fs.mkdirSync(path.join(folder, '.gitbook', 'assets'), { recursive: true })
    fs.mkdirSync(path.join(folder, 'guide'))
    fs.writeFileSync(path.join(folder, '.gitbook', 'assets', 'logo.png'), PNG)
    fs.writeFileSync(path.join(folder, 'guide', 'faq.md'), '# FAQ\n')
    // Outside the assets folder, and outside the space folder.
    fs.writeFileSync(path.join(folder, 'inside.png'), PNG)
    fs.writeFileSync(path.join(root, 'secret.png'), PNG)
    fs.writeFileSync(path.join(root, 'secret.md'), '# Secret\n\nDo not show.\n')
  })
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

  const render = (markdown: string, page = 'guide/page.md') => previewHtml(previewSpacePage(folder, page, markdown).tree)

  it('reads the saved file, its image from .gitbook/assets as data, and knows which links are pages', () => {
    fs.writeFileSync(path.join(folder, 'guide', 'page.md'), '# Page\n\n![Logo](../.gitbook/assets/logo.png) [FAQ](faq.md)\n')
    const preview = previewSpacePage(folder, 'guide/page.md')
    expect(preview.title).toBe('Page')
    const out = previewHtml(preview.tree)
    expect(out).toContain(`<img src="data:image/png;base64,${PNG.toString('base64')}" alt="Logo">`)
    expect(out).toContain('data-preview-path="guide/faq.md"')
  })

  it('a hostile image path reads nothing outside .gitbook/assets', () => {
    fs.symlinkSync(path.join(root, 'secret.png'), path.join(folder, '.gitbook', 'assets', 'link.png'))
    fs.symlinkSync(root, path.join(folder, '.gitbook', 'assets', 'up'))
    for (const src of ['../../secret.png', '../inside.png', '../.gitbook/assets/../../../secret.png', '../.gitbook/assets/link.png', '../.gitbook/assets/up/secret.png', '/etc/hostname', '..%2F..%2Fsecret.png', 'file:///etc/hostname']) {
      const out = render(`![x](${src})`)
      expect(out, src).not.toContain('data:')
      expect(out, src).not.toContain('<img')
    }
  })

  it('a hostile page path is refused, a page link out of the folder is not a page', () => {
    for (const page of ['../secret.md', 'guide/../../secret.md', '/etc/passwd.md', 'guide\\..\\..\\secret.md', 'notes.txt']) {
      expect(() => previewSpacePage(folder, page), page).toThrow(PreviewRefused)
    }
    fs.symlinkSync(path.join(root, 'secret.md'), path.join(folder, 'guide', 'leak.md'))
    expect(() => previewSpacePage(folder, 'guide/leak.md')).toThrow(/no page file/)
    expect(render('[s](../../secret.md) [l](leak.md)')).not.toContain('data-preview-path')
  })
})
