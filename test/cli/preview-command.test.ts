import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'
import { PNG } from '../engine/sync-up/support/workspace'

/** Issue 28 through the CLI: `quire preview FILE` prints the page as the app previews it, sanitized, loading nothing. */

function capture() {
  const out: string[] = []
  const err: string[] = []
  return { io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), isTTY: false }, out, err }
}

describe('quire preview', () => {
  let root: string
  let folder: string
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-preview-cli-'))
    folder = path.join(root, 'Docs')
    fs.mkdirSync(path.join(folder, '.gitbook', 'assets'), { recursive: true })
    fs.mkdirSync(path.join(folder, 'guide'))
    fs.writeFileSync(path.join(folder, 'SUMMARY.md'), '# Table of contents\n\n* [Guide](guide/page.md)\n')
    fs.writeFileSync(path.join(folder, '.gitbook', 'assets', 'logo.png'), PNG)
    fs.writeFileSync(path.join(root, 'outside.png'), PNG)
  })
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

  it('prints a standalone page: blocks rendered, the asset inlined, nothing that runs or fetches', async () => {
    const file = path.join(folder, 'guide', 'page.md')
    fs.writeFileSync(file, '# Page\n\n{% hint style="success" %}\nDone.\n{% endhint %}\n\n![Logo](../.gitbook/assets/logo.png) ![Out](../../outside.png) ![R](https://t.example/p.png)\n\n<script>alert(1)</script><img src=x onerror=alert(2)>\n')
    const c = capture()
    expect(await main(['preview', file], c.io)).toBe(0)
    const html = c.out.join('\n')
    expect(html).toMatch(/^<!doctype html>/)
    expect(html).toContain(`content="default-src 'none'; img-src data:;`)
    expect(html).toContain('<title>Page</title>')
    expect(html).toContain('<div class="gb-hint gb-hint-success" role="note"><p class="gb-hint-label">Success</p><p>Done.</p></div>')
    expect(html).toContain(`<img src="data:image/png;base64,${PNG.toString('base64')}" alt="Logo">`)
    expect(html).toContain('Image not found (Out): ../../outside.png')
    expect(html).toContain('Remote image not loaded (R)')
    expect(html).not.toMatch(/<script|onerror|alert/)
  })

  it('--out writes the page; a file that is not there, or not markdown, fails with 1', async () => {
    const file = path.join(folder, 'guide', 'page.md')
    fs.writeFileSync(file, '# Page\n')
    const out = path.join(root, 'page.html')
    expect(await main(['preview', file, '--out', out], capture().io)).toBe(0)
    expect(fs.readFileSync(out, 'utf8')).toContain('<h1 id="user-content-page">Page</h1>')
    const missing = capture()
    expect(await main(['preview', path.join(folder, 'nope.md')], missing.io)).toBe(1)
    expect(missing.err.join('\n')).toMatch(/quire preview: .*nope\.md/)
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'x')
    expect(await main(['preview', path.join(folder, 'notes.txt')], capture().io)).toBe(1)
    expect(await main(['preview'], capture().io)).toBe(2)
  })
})
