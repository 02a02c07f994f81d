/**
 * A small PDF 1.4 writer for printable exports: text only, Helvetica, A4 pages, long lines wrapped.
 * Characters outside Latin-1 have no glyph in the standard fonts' encoding and print as `?`.
 */

export interface PdfSection {
  heading: string
  lines: string[]
}

const PAGE_WIDTH = 595
const PAGE_HEIGHT = 842
const MARGIN = 56
const BODY_SIZE = 10
const HEADING_SIZE = 16
const LEADING = 14
const WRAP_AT = 95

type Line = { text: string; size: number }

function latin1(text: string): string {
  return Array.from(text, (char) => {
    const code = char.codePointAt(0) ?? 63
    return code === 9 ? '    ' : code < 32 || code > 255 ? '?' : char
  }).join('')
}

function escapePdfString(text: string): string {
  return text.replace(/[\\()]/g, (c) => `\\${c}`)
}

function wrap(line: string): string[] {
  if (line.length <= WRAP_AT) return [line]
  const out: string[] = []
  let rest = line
  while (rest.length > WRAP_AT) {
    const cut = rest.lastIndexOf(' ', WRAP_AT)
    const at = cut > WRAP_AT / 2 ? cut : WRAP_AT
    out.push(rest.slice(0, at))
    rest = rest.slice(at).replace(/^ /, '')
  }
  out.push(rest)
  return out
}

function layout(title: string, sections: PdfSection[]): Line[][] {
  const lines: Line[] = [{ text: title, size: HEADING_SIZE }, { text: '', size: BODY_SIZE }]
  for (const section of sections) {
    lines.push({ text: section.heading, size: HEADING_SIZE - 2 })
    for (const raw of section.lines) for (const part of wrap(latin1(raw))) lines.push({ text: part, size: BODY_SIZE })
    lines.push({ text: '', size: BODY_SIZE })
  }
  const perPage = Math.floor((PAGE_HEIGHT - 2 * MARGIN) / LEADING)
  const pages: Line[][] = []
  for (let i = 0; i < lines.length; i += perPage) pages.push(lines.slice(i, i + perPage))
  return pages
}

function contentStream(lines: Line[]): string {
  const ops = ['BT', `${MARGIN} ${PAGE_HEIGHT - MARGIN} Td`, `${LEADING} TL`]
  for (const line of lines) ops.push(`/F1 ${line.size} Tf`, `(${escapePdfString(latin1(line.text))}) '`)
  ops.push('ET')
  return ops.join('\n')
}

export function renderPdf(title: string, sections: PdfSection[]): Buffer {
  const pages = layout(title, sections)
  // Objects: 1 catalog, 2 page tree, 3 font, 4 info, then a page object and its content stream per page.
  const objects: string[] = []
  const pageIds = pages.map((_, i) => 5 + i * 2)
  objects[1] = '<< /Type /Catalog /Pages 2 0 R >>'
  objects[2] = `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`
  objects[3] = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'
  objects[4] = `<< /Title (${escapePdfString(latin1(title))}) /Producer (Quire local service) >>`
  pages.forEach((lines, i) => {
    const stream = contentStream(lines)
    objects[pageIds[i]] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Resources << /Font << /F1 3 0 R >> >> /Contents ${pageIds[i] + 1} 0 R >>`
    objects[pageIds[i] + 1] = `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`
  })

  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xE2\xE3\xCF\xD3\n', 'latin1')]
  let offset = chunks[0].length
  const offsets: number[] = []
  for (let id = 1; id < objects.length; id++) {
    const chunk = Buffer.from(`${id} 0 obj\n${objects[id]}\nendobj\n`, 'latin1')
    offsets[id] = offset
    offset += chunk.length
    chunks.push(chunk)
  }
  const xref = [`xref\n0 ${objects.length}`, '0000000000 65535 f ']
  for (let id = 1; id < objects.length; id++) xref.push(`${String(offsets[id]).padStart(10, '0')} 00000 n `)
  chunks.push(
    Buffer.from(`${xref.join('\n')}\ntrailer\n<< /Size ${objects.length} /Root 1 0 R /Info 4 0 R >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'),
  )
  return Buffer.concat(chunks)
}
