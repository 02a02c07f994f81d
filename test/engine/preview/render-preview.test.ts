import { describe, expect, it } from 'vitest'
import { previewHtml, renderPreview } from '../../../src/main/engine/preview/render-preview'

/**
 * Issue 28, a faithful preview: each GitBook block kind becomes the element the preview shows, and the
 * page is sanitized as comments are (no script, no handler, no `javascript:`, nothing remote fetched).
 */

const LOGO = 'data:image/png;base64,iVBORw0KGgo='
const html = (markdown: string, pagePath = 'guide/page.md') =>
  previewHtml(
    renderPreview(markdown, {
      pagePath,
      pageExists: (p) => ['guide/faq.md', 'README.md', 'guide/README.md'].includes(p),
      image: (p) => (p === '.gitbook/assets/logo.png' ? LOGO : undefined),
    }).tree,
  )

describe('every GitBook block kind', () => {
  it('hint: its style as a class and a label, as a note', () => {
    const out = html('{% hint style="danger" %}\nDo **not**.\n{% endhint %}')
    expect(out).toContain('<div class="gb-hint gb-hint-danger" role="note"><p class="gb-hint-label">Danger</p><p>Do <strong>not</strong>.</p></div>')
    expect(html('{% hint style="made-up" %}\nx\n{% endhint %}')).toContain('gb-hint-info')
  })

  it('tabs: each tab with its title', () => {
    const out = html('{% tabs %}\n{% tab title="macOS" %}\nbrew\n{% endtab %}\n{% tab title="Linux" %}\napt\n{% endtab %}\n{% endtabs %}')
    expect(out).toBe('<div class="gb-tabs"><div class="gb-tab" data-title="macOS"><p>brew</p></div><div class="gb-tab" data-title="Linux"><p>apt</p></div></div>')
  })

  it('code with a title: a figure captioned by it, the fenced code inside with its language', () => {
    const out = html('{% code title="hello.js" %}\n```js\nconsole.log(1)\n```\n{% endcode %}')
    expect(out).toBe('<figure class="gb-code"><figcaption>hello.js</figcaption><pre><code class="language-js">console.log(1)\n</code></pre></figure>')
  })

  it('embed: a link and a note, never a frame', () => {
    const out = html('{% embed url="https://www.youtube.com/watch?v=abc" %}')
    expect(out).toContain('class="gb-embed"')
    expect(out).toContain('<a href="https://www.youtube.com/watch?v=abc" class="gb-embed-link">')
    expect(out).not.toMatch(/<iframe|<video|<object/)
  })

  it('content-ref: a card whose link opens the target page’s preview', () => {
    const out = html('{% content-ref url="faq.md" %}\n[faq.md](faq.md)\n{% endcontent-ref %}')
    expect(out).toBe('<div class="gb-content-ref"><p><a href="#" data-preview-path="guide/faq.md">faq.md</a></p></div>')
  })

  it('file: its name, pointing at the asset', () => {
    const out = html('{% file src="../.gitbook/assets/Guide%20v2.pdf" %}\nThe guide\n{% endfile %}')
    expect(out).toContain('<div class="gb-file"><a class="gb-file-link gb-asset-link" title=".gitbook/assets/Guide v2.pdf">Guide v2.pdf</a></div>')
    expect(out).not.toContain('endfile')
  })

  it('stepper: an ordered list of steps', () => {
    const out = html('{% stepper %}\n{% step %}\n### One\nFirst.\n{% endstep %}\n{% step %}\n### Two\n{% endstep %}\n{% endstepper %}')
    expect(out).toMatch(/^<ol class="gb-stepper"><li class="gb-step"><h3 id="user-content-one">One<\/h3>\s*<p>First\.<\/p><\/li><li class="gb-step"><h3 id="user-content-two">Two<\/h3><\/li><\/ol>$/)
  })

  it('columns: one element per column', () => {
    expect(html('{% columns %}\n{% column %}\nLeft\n{% endcolumn %}\n{% column %}\nRight\n{% endcolumn %}\n{% endcolumns %}')).toBe(
      '<div class="gb-columns"><div class="gb-column"><p>Left</p></div><div class="gb-column"><p>Right</p></div></div>',
    )
  })

  it('details: an expandable with its summary', () => {
    expect(html('<details>\n<summary>More *here*</summary>\n\nHidden.\n\n</details>')).toBe('<details class="gb-details"><summary>More <em>here</em></summary><p>Hidden.</p></details>')
  })

  it('figure: the image from .gitbook/assets, with its caption', () => {
    const out = html('<figure><img src="../.gitbook/assets/logo.png" alt="Logo"><figcaption><p>The logo</p></figcaption></figure>')
    expect(out).toBe(`<figure><img src="${LOGO}" alt="Logo"><figcaption><p>The logo</p></figcaption></figure>`)
  })

  it('math: $$ blocks and inline $$ as MathML (no script, no fonts)', () => {
    const block = html('$$\n\\frac{a}{b}\n$$')
    expect(block).toMatch(/^<div class="gb-math"><span><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML" display="block"><semantics><mrow><mfrac><mi>a<\/mi><mi>b<\/mi><\/mfrac>/)
    expect(html('Area $$\\pi r^2$$ here.')).toMatch(/^<p>Area <span class="gb-math"><span><math [^>]*><semantics><mrow><mi>π<\/mi>/)
    // Inside code it stays text.
    expect(html('`$$x$$`')).toBe('<p><code>$$x$$</code></p>')
  })

  it('blocks nest: a hint with code inside a tab, a list around raw HTML, multi-line math', () => {
    const out = html('{% tabs %}\n{% tab title="A" %}\n{% hint style="success" %}\n```sh\nnpm i\n```\n{% endhint %}\n{% endtab %}\n{% endtabs %}\n\n* one <mark>two</mark>\n\n$$\na \\\\\n\nb\n$$')
    expect(out).toContain('<div class="gb-tabs"><div class="gb-tab" data-title="A"><div class="gb-hint gb-hint-success" role="note"><p class="gb-hint-label">Success</p><pre><code class="language-sh">npm i\n</code></pre></div></div></div>')
    expect(out).toContain('<li>one <mark>two</mark></li>')
    expect(out).toMatch(/<div class="gb-math"><span><math [^>]*display="block">.*<\/math><\/span><\/div>$/)
  })

  it('headings carry GitBook’s anchors; a title and front matter are the page’s, not its text', () => {
    const out = html('---\ndescription: Hi\n---\n\n# Page\n\n## 1. Set up & go\n')
    expect(out).toBe('<h1 id="user-content-page">Page</h1><h2 id="user-content-id-1.-set-up-and-go">1. Set up &#x26; go</h2>')
  })
})

describe('links and images', () => {
  it('a link to a page of the space opens its preview; one to nothing says so; a folder link opens its README', () => {
    expect(html('[FAQ](faq.md#install)')).toBe('<p><a href="#user-content-install" data-preview-path="guide/faq.md" data-preview-anchor="install">FAQ</a></p>')
    expect(html('[Gone](missing.md)')).toBe('<p><a class="gb-broken-link" title="No page at guide/missing.md">Gone</a></p>')
    expect(html('[Home](../)')).toContain('data-preview-path="README.md"')
  })

  it('an image that is not in .gitbook/assets, or is missing, is a placeholder', () => {
    expect(html('![x](../secret.png)')).toBe('<p><span class="gb-missing-image">Image not found (x): secret.png</span></p>')
    expect(html('![x](../../../etc/passwd)')).toContain('gb-missing-image')
  })
})

describe('sanitized as comments are', () => {
  it('a <script> is gone, with its text', () => {
    const out = html('Hi <script>alert(1)</script>\n\n<script>\nalert(2)\n</script>')
    expect(out).not.toMatch(/script|alert/)
  })

  it('an onerror= (or any handler) is gone', () => {
    const out = html('<img src="../.gitbook/assets/logo.png" onerror="alert(1)"><p onclick="x()" onmouseover="y()">t</p>')
    expect(out).not.toMatch(/onerror|onclick|onmouseover|alert/)
    expect(out).toContain(LOGO)
  })

  it('a javascript: link keeps its text and loses its address', () => {
    const out = html('[bad](javascript:alert(1)) <a href="JavaScript:alert(2)">raw</a> <a href="data:text/html,x">d</a>')
    expect(out).toBe('<p><a>bad</a> <a>raw</a> <a>d</a></p>')
  })

  it('a remote <img> is never loaded: a placeholder with a link the writer may open', () => {
    const out = html('![chart](https://evil.example/c.png) <img src="http://evil.example/t.gif"> <picture><source srcset="https://evil.example/s.png"></picture> <img srcset="https://evil.example/a.png 2x"> <img src="//evil.example/p.png"> <img src="HTTPS://EVIL.EXAMPLE/U.PNG"> <img src="data:image/svg+xml,<svg/>">')
    expect(out).not.toMatch(/<img|srcset|<source/)
    expect(html('[p](//evil.example/x)')).toBe('<p><a>p</a></p>')
    expect(out).toContain('<span class="gb-remote-image">Remote image not loaded (chart): <a href="https://evil.example/c.png">https://evil.example/c.png</a></span>')
  })

  it('no frame, style, form or object survives; classes are only the preview’s own', () => {
    const out = html('<iframe src="https://evil.example"></iframe><div style="background:url(https://evil.example/x)" class="app topbar gb-ok">x</div><form action="https://evil.example"><input name="a"></form><object data="x"></object>')
    expect(out).not.toMatch(/iframe|style=|url\(|<form|<object|topbar/)
    expect(out).toContain('<div class="gb-ok">x</div>')
  })
})
