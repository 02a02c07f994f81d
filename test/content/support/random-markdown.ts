/**
 * Random markdown for the link scanner's property test: blocks and inline pieces mixing what makes
 * links subtle (escapes, entities, nested brackets, code spans, HTML, definitions, bare URLs, tables,
 * containers, indentation, fences), each drawn from a seeded generator so a failure is reproduced.
 */
/** mulberry32: a small seeded generator, so a failure is reproduced by its seed. */
export function random(seed: number): { next: () => number; pick: <T>(items: readonly T[]) => T; int: (low: number, high: number) => number } {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, pick: (items) => items[Math.floor(next() * items.length)], int: (low, high) => low + Math.floor(next() * (high - low + 1)) }
}

export type Random = ReturnType<typeof random>

/** Pieces in two kinds: plain ones (what most prose is made of) and tricky ones (what makes links subtle). */
interface Pieces {
  plain: readonly string[]
  tricky: readonly string[]
}

const WORDS: Pieces = {
  plain: ['foo', 'bar baz', 'Note:', 'x.y', 'R&D', '(paren)', '!', '*em*', '_u_', '**b**', '~~s~~', '#', 'é', 'a]b', 'http', 'https:'],
  tricky: ['&amp;', '&#91;', 'a)b', ' | ', '\\[', '\\]', '\\`', '\\\\', '\\', '](x)', '((', '  ', '\\!', '!\\[', 'x:/y'],
}
const DESTINATIONS: Pieces = {
  plain: ['./a.md', 'page.md#x', '/pages/abc', 'https://example.com/x', 'a(b)c', 'é.md', '%20', '', '.gitbook/assets/a.png'],
  tricky: ['a(b', 'a\\)b', 'a&amp;b', 'c`d', 'a|b', '((((((((((x))))))))))', '.gitbook/assets/a b.png', 'a)b'],
}
const LABELS: Pieces = {
  plain: ['text', '`code`', '', '*em*', 'a `]` b', 'a\\]b'],
  tricky: ['https://x.com', 'www.x.com', 'nested [x](y)', 'multi\nline', '![i](j.png)', 'a|b', '``a`b``', '`a'],
}
const OTHER_LINKS: Pieces = {
  plain: ['[a]', '[x](y) ]', '[a][b]', '[a](<b c>)', '[a](b "t")', '[a](<b c (1).png> "mention")', '[a](b "mention")', '[a](b  "t" )', '[a](<>)', '[a](<b>)', '[https://a.com/b](https://c.com)', '![https://a.com/b](c.png)', '[x https://a.com/b y](./a.md)'],
  tricky: ['[a][ref]', '[ref]', '[a]( b )', '[a](b\n)', '[^1]', '[a](b )', '[a](b "t|u")', '[a](b "t\\"u")', '[a](<b>c>)', '[a](<b\\>)', "[a](b 't')", '[a](b "t"x)', '[a](<b c>"t")', '[a](<b\nc>)', '[a](b "t\nu")', '[https://a.com/b] z', '[a](<b&amp;c>)', '[a](<<b>)'],
}
const URLS: Pieces = {
  plain: ['url="https://a.com/b" %}', '"https://x.com/a" ', 'https://example.com/page', 'http://example.com.', 'https://a.b/c.d', 'https://a-b.c/', 'https://x.com/a/', 'https://1.2.3.4/x', 'https://x.com/a.b.', '(from https://a.com/b)', '(https://a.com/b).', '(https://a.com/b), x', 'x https://a.com/b) y', 'https://a.com/b?c=d&e=f', 'https://a.com/b_c', 'https://a.com/b#x', 'https://a.com/%20x', 'https://a.com/b:c', 'https://a.com/a+b=c', 'https://a.com/b/?x=1#y'],
  tricky: ['https://a.b/c_d', 'www.example.com', 'WWW.example.com', 'HTTPS://x.com', 'me@example.com', 'https://localhost', 'https://x.com?a=1', '(https://x.com)', 'https://x.com,', 'xhttps://a.com', 'https://-a.com', 'https://a.com-', 'https://a..com', '"https://x.com/a"', '"https://a.com/b"x', '"https://a.com/b.".', '"https://a.com/b".', 'https://x.com/.', 'https://a.b/c-', 'https://a_b.com/x', 'https://a.com/b?c=d&amp;e=f', 'https://a.com/b_', 'https://a.com/b~', 'https://a.com/b?', '(https://a.com/b(c))', 'https://a.com/b)x', 'https://a.com/b).x', 'https://a.com/b"x', 'https://a.com/b_.', 'https://a.com/b?x=1.', '(https://a.com/b)"', 'https://a.com/b&', 'https://a.com/b&c;', 'https://a.com/b)).', 'https://a.com/b),.', 'https://a.com/b.)', 'https://a.com/:', 'https://a.com/#', 'https://a.com/b%'],
}
const CODE_SPANS: Pieces = {
  plain: ['`a`', '``a`b``', '` `` `', '`[a](b)`', '`https://x.com`', '`\\`'],
  tricky: ['`a', '```x```', '`|`', '`<b>`', '``', '`a\nb`'],
}
const HTML: Pieces = {
  plain: ['a > b', '<a href="#x" id="x"></a>', '<img src="y.png" alt="">', '<br/>', '</a>', '<mark style="color:red;">x</mark>', '<a href=x.md>t</a>', "<img src='z.png' />", '<A HREF="Q.md">q</A>', '<a href="">e</a>', '<a href="a&amp;b">'],
  tricky: ['<a href = "x">', '<a href="x"id="y">', "<img src='a>b'>", '<https://auto.com>', 'a < b', '<a title="a|b">', '<a\nhref="x">', '<!-- c -->', '<a href="x', '<x:y>', '<a href="`">`'],
}
const HTML_BLOCKS: Pieces = {
  plain: [
    '<figure><img src="a.png" alt=""><figcaption><p>c</p></figcaption></figure>',
    '<details>\n\n<summary>S <a href="s.md">s</a></summary>\n\n[a](b)\n\n</details>',
    '<div>\n[a](b) <img src="d.png">\n</div>',
    '<table><tr><td><a href="x.md">x</a></td></tr></table>',
    '<DIV CLASS="x">\n<a href="u.md">\n  <img\n   src="v.png">',
    '</div>',
    '<p align="center">\n<img src="w.png"/>\n</p>  ',
  ],
  tricky: ['<pre>\n[a](b)\n</pre>', '<script src="x"></script>', '  <div>', '- <div>\n<a href="l.md">', '<img src="a.png">', '<div <a href="x">', '<div>\n<a href="x', '<!--\n[a](b)\n-->', '<figure>x</figure>\n```\n[a](b)\n```'],
}
const PREFIXES: Pieces = {
  plain: ['', '', '', '# ', '## ', '- ', '* ', '1. ', '> ', '  ', '- - ', '> > ', '1) ', '- [ ] ', '   '],
  tricky: ['    ', '\t', '     ', '-     ', '>     ', '- \t', '>>>>>>>>>> '],
}

/** A document's generator: `tricky` is how often a piece comes from the tricky kind. */
export interface Generator {
  rnd: Random
  tricky: number
}

const pick = (g: Generator, pieces: Pieces): string => g.rnd.pick(g.rnd.next() < g.tricky ? pieces.tricky : pieces.plain)

function inline(g: Generator): string {
  const parts: string[] = []
  for (let n = g.rnd.int(1, 6); n > 0; n--) {
    const kind = g.rnd.next()
    if (kind < 0.3) parts.push(pick(g, WORDS))
    else if (kind < 0.55) parts.push(`${g.rnd.next() < 0.25 ? '!' : ''}[${pick(g, LABELS)}](${pick(g, DESTINATIONS)})`)
    else if (kind < 0.6) parts.push(pick(g, OTHER_LINKS))
    else if (kind < 0.72) parts.push(pick(g, CODE_SPANS))
    else if (kind < 0.9) parts.push(pick(g, URLS))
    else parts.push(pick(g, HTML))
  }
  return parts.join(g.rnd.next() < 0.8 ? ' ' : '')
}

function block(g: Generator): string {
  const { rnd } = g
  const kind = rnd.next()
  if (kind < 0.5) {
    const lines = Array.from({ length: rnd.int(1, 3) }, (_, i) => (i === 0 || rnd.next() < 0.3 ? pick(g, PREFIXES) : '') + inline(g))
    return lines.join('\n')
  }
  if (kind < 0.65) {
    const fence = pick(g, { plain: ['```', '````', '~~~', '```js'], tricky: ['``` `x`', ' ```', '- ```', '> ```', '```js title="a"'] })
    const closer = pick(g, { plain: ['```', '````', '~~~', '  ```', '```  ', ''], tricky: ['``` x', '    ```', '~~~~'] })
    return [fence, inline(g), rnd.next() < 0.3 ? '' : inline(g), closer].join('\n')
  }
  if (kind < 0.75) return ['| a | b |', rnd.pick(['| - | - |', '|---|:-:|', 'no delimiter']), `| ${inline(g)} | ${inline(g)} |`, `${inline(g)} | x`].join('\n')
  if (kind < 0.8) return pick(g, { plain: ['---', '***', 'Title\n===', 'Title\n---'], tricky: ['[ref]: ./defined.md', '[ref]:\n  /url "t"', '[^1]: note', '[a\nb]: c', '<div>\n[a](b)\n</div>', '<!--\n[a](b)\n-->'] })
  if (kind < 0.83) return pick(g, HTML_BLOCKS)
  if (kind < 0.85) return `${pick(g, PREFIXES)}${inline(g)}\n${pick(g, { plain: ['  ', '', '> ', '- '], tricky: ['    ', '\t', '      '] })}${inline(g)}`
  if (kind < 0.9) return `- ${inline(g)}\n\n${pick(g, { plain: ['  ', '- ', ''], tricky: ['    ', '     '] })}${inline(g)}`
  return `${inline(g)}\n${rnd.pick(['    ', '  ', ''])}${inline(g)}`
}

/** A few blocks of random markdown, about a third of its pieces tricky at most. */
export function randomMarkdown(rnd: Random): string {
  const g: Generator = { rnd, tricky: rnd.next() < 0.3 ? 0 : rnd.next() * 0.35 }
  const blocks = Array.from({ length: rnd.int(1, 6) }, () => block(g))
  const text = blocks.join(rnd.next() < 0.7 ? '\n\n' : '\n') + (rnd.next() < 0.5 ? '\n' : '')
  return rnd.next() < 0.03 ? text.replace(/\n/g, '\r\n') : text
}
