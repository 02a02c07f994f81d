import fs from 'node:fs'
import { previewHtml, previewSpacePage, PreviewRefused, spaceFolderOf } from '../engine'
import type { CliIo } from './io'

const HELP = `quire preview FILE [--out PAGE.html]

Renders a page file of a space folder as the service shows it (GitBook blocks, math, images from the
folder's .gitbook/assets), sanitized: no script, nothing remote (a remote image or an embed is a link).
Prints a standalone HTML page, or writes it to --out.`

/** A page that loads nothing: images are data, styles inline, and the policy forbids anything else. */
const PAGE_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
const STYLE = `body{font:16px/1.6 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
img{max-width:100%}pre{background:#eef1f4;padding:.6rem .8rem;border-radius:6px;overflow:auto}
.gb-hint{border-left:4px solid #0b5fd0;background:#e3edfb;border-radius:6px;padding:.4rem .9rem;margin:.8rem 0}
.gb-hint-success{border-color:#116329;background:#dcf5e3}.gb-hint-warning{border-color:#7d4e00;background:#fff1c2}.gb-hint-danger{border-color:#b42318;background:#fde4e1}
.gb-hint-label{font-weight:600;font-size:.85rem;margin:.2rem 0}
.gb-tab,.gb-embed,.gb-file,.gb-content-ref,.gb-details{border:1px solid #d0d7de;border-radius:6px;padding:.4rem .9rem;margin:.8rem 0}
.gb-tab::before{content:attr(data-title);font-weight:600;display:block}
.gb-columns{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:1rem}
.gb-code figcaption{font:.85rem ui-monospace,monospace;background:#eef1f4;padding:.3rem .8rem}
.gb-missing-image,.gb-remote-image{border:1px dashed #d0d7de;padding:.2rem .5rem;color:#57606a}
.gb-broken-link{color:#b42318}`

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export async function previewCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(HELP)
    return 0
  }
  const outAt = args.indexOf('--out')
  const out = outAt >= 0 ? args[outAt + 1] : undefined
  const files = args.filter((a, i) => !a.startsWith('--') && !(outAt >= 0 && i === outAt + 1))
  if (files.length !== 1 || (outAt >= 0 && !out)) {
    io.err(HELP)
    return 2
  }
  let page: { title?: string; html: string }
  try {
    const { folder, pagePath } = spaceFolderOf(files[0])
    const { title, tree } = previewSpacePage(folder, pagePath)
    page = { title, html: previewHtml(tree) }
  } catch (error) {
    if (error instanceof PreviewRefused || (error as NodeJS.ErrnoException).code === 'ENOENT') {
      io.err(`quire preview: ${error instanceof Error ? error.message : String(error)}`)
      return 1
    }
    throw error
  }
  const document = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${PAGE_CSP}"><title>${escape(page.title ?? files[0])}</title><style>${STYLE}</style></head><body>\n${page.html}\n</body></html>`
  if (out) {
    fs.writeFileSync(out, `${document}\n`)
    io.err(`quire preview: wrote ${out}`)
  } else io.out(document)
  return 0
}
