/**
 * Link targets written in HTML: the `src` / `href` attribute of an `<img>` or `<a>` (GitBook's
 * `<figure><img src=...>`, heading anchors `<a href="#x">`), found by pattern in the text of an HTML node
 * (remark's `html` nodes; the link scanner's HTML blocks and tags, read exactly as remark would cut them).
 */

export const HTML_ATTRIBUTE = /<(?:img|a)\b[^>]*?\s(?:src|href)\s*=\s*(["'])(?<value>.*?)\1/dgi

export function decodeAttribute(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}

/**
 * Matches of `pattern` (flags `d` and `g`) within `source[from, to)`: the range
 * of its `value` group, or of the whole match when it has none.
 */
export function matchesIn(source: string, from: number, to: number, pattern: RegExp): Array<{ value: string; start: number; end: number }> {
  const out: Array<{ value: string; start: number; end: number }> = []
  for (const match of source.slice(from, to).matchAll(pattern)) {
    const [start, end] = match.indices?.groups?.value ?? match.indices?.[0] ?? [0, 0]
    out.push({ value: match.groups?.value ?? match[0], start: from + start, end: from + end })
  }
  return out
}

/** The attribute links of the HTML in `source[from, to)`, as `parseChunkLinks` lists them. */
export function attributeLinks(source: string, from: number, to: number): Array<{ target: string; start: number; end: number; syntax: 'attribute' }> {
  const out: Array<{ target: string; start: number; end: number; syntax: 'attribute' }> = []
  for (const match of matchesIn(source, from, to, HTML_ATTRIBUTE)) {
    const target = decodeAttribute(match.value)
    if (target !== '') out.push({ target, start: match.start, end: match.end, syntax: 'attribute' })
  }
  return out
}
