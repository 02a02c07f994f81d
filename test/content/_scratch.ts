import { extractLinks, rewriteLinks } from '../../src/main/content/markdown/links'
const body = `See [other](other.md#x) and ![img](<.gitbook/assets/image (8).png> "t").

<figure><img src="../.gitbook/assets/a.png" alt=""><figcaption></figcaption></figure>

{% content-ref url="child/README.md" %}
[README.md](child/README.md)
{% endcontent-ref %}

{% file src=".gitbook/assets/doc.pdf" %}

{% embed url="https://youtube.com/x" %}

\`{% file src="no.pdf" %}\` and [\`a]\`](#anchor) <https://auto.link> www.example.com [ref][r]

> quote [q](../q.md)

[r]: ./ref-target.md "Title"
`
for (const l of extractLinks(body)) console.log(JSON.stringify(l), JSON.stringify(body.slice(l.start, l.end)))
console.log(rewriteLinks(body, (l) => l.kind === 'file' ? 'X Y.png' : l.kind === 'page' ? 'P.md' : undefined))
