/**
 * Random pages made of the markdown that spans blank lines or looks like
 * something it is not (fences in lists, quotes and HTML, comments, loose
 * lists, GitBook blocks nested and unclosed, indented code, CRLF, a byte
 * order mark), and random line edits of them: the input that tells whether
 * the merge's segments (src/main/content/merge/segments.ts) ever cut where
 * the parser would not.
 */
import type { Random } from './random'

const TRICKY: Array<(r: Random) => string> = [
  (r) => `Plain paragraph ${r.int(0, 99)}\nwith a second line`,
  (r) => `## Heading ${r.int(0, 99)}`,
  (r) => `Setext ${r.int(0, 99)}\n${r.pick(['===', '---'])}`,
  (r) => `${r.pick(['```', '```js', '~~~'])}\ncode ${r.int(0, 99)}\n\nnot a paragraph\n\n# not a heading\n${r.pick(['```', '~~~', '````'])}`,
  () => '````md\n```\n\ninside\n```\n````',
  () => '~~~\n```\n\nstill tilde\n~~~',
  () => '```\nnever closed\n\nto the end',
  (r) => `<!--\ncomment ${r.int(0, 99)}\n\n\`\`\`\nstill comment\n-->`,
  () => '<pre>\na\n\n```\nb\n</pre>',
  () => '<div>\n```\n</div>',
  () => '<details>\n<summary>More</summary>\n\nInside details.\n\n</details>',
  (r) => `<figure><img src="a${r.int(0, 9)}.png" alt=""><figcaption><p>fig</p></figcaption></figure>`,
  () => 'text before\n<span>inline html</span>\n```\nfence after a paragraph\n\nx\n```',
  (r) => `* a ${r.int(0, 99)}\n\n* b\n\n  continued\n\n* c`,
  () => '1. one\n\n2. two\n\n   more of two',
  () => '* item\n\n  ```\n  code\n\n  more\n  ```',
  () => '* ```js\n  x\n\n  y\n  ```',
  () => '- item\n  ```\ncolumn zero\n```',
  () => '> quote a\n>\n> quote b',
  () => '> ```\n> in quote\n\nafter the quote',
  () => '    indented code\n\n    more indented code',
  (r) => `{% hint style="info" %}\nhint ${r.int(0, 99)}\n\nsecond\n\n* list in hint\n{% endhint %}`,
  () => '{% tabs %}\n{% tab title="A" %}\nA\n\n```\n{% endtab %}\n```\n{% endtab %}\n\n{% tab title="B" %}\nB\n{% endtab %}\n{% endtabs %}',
  (r) => `{% embed url="https://example.com/${r.int(0, 99)}" %}`,
  () => '{% endhint %}',
  () => '{% hint style="warning" %}\nunclosed hint',
  () => '{% code title="a.js" %}\n```js\n{% endcode %}\n```\n{% endcode %}',
  () => '| a | b |\n| - | - |\n| 1 | 2 |',
  () => '[^note]: a footnote\n\n    continued in it',
  () => '[ref]: https://example.com "title"',
  (r) => r.pick(['***', '---', '- - -', '* * *']),
  () => 'lazy\ncontinuation\n- marker',
  () => '<script>\nlet a = 1\n\nlet b = 2\n</script>',
  () => '<?php\n\necho 1\n?>',
  () => '2024. was a year',
]

const SEPARATORS = ['\n\n', '\n\n', '\n\n', '\n', '\n\n\n', '\n \n']

/** A page file of tricky blocks (front matter, title, BOM and CRLF sometimes). */
export function trickyPage(random: Random): string {
  const blocks = random.many(random.int(1, 14), () => random.pick(TRICKY)(random))
  let text = random.bool(0.5) ? '' : `---\ndescription: d ${random.int(0, 9)}\n\nicon: gear\n---\n\n`
  if (random.bool(0.7)) text += `# Title ${random.int(0, 99)}\n\n`
  blocks.forEach((block, i) => (text += (i === 0 ? '' : random.pick(SEPARATORS)) + block))
  text += random.bool(0.8) ? '\n' : ''
  if (random.bool(0.1)) text = text.replace(/\n/g, '\r\n')
  return random.bool(0.05) ? `\uFEFF${text}` : text
}

/** A few random line edits: a line changed, removed, or inserted (a blank one, a paragraph, a fence, a tag). */
export function editLines(random: Random, text: string, mark: string): string {
  const lines = text.split('\n')
  for (let n = random.int(1, 3); n > 0; n--) {
    const at = random.int(0, lines.length - 1)
    const roll = random.next()
    if (roll < 0.4) lines[at] = `${lines[at]} ${mark}${n}`
    else if (roll < 0.6 && lines.length > 1) lines.splice(at, 1)
    else lines.splice(at, 0, random.pick(['', `${mark}${n} line`, '```', '{% endhint %}', '* item', '<!--', '-->', '    indented']))
  }
  return lines.join('\n')
}
