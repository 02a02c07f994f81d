import { parseMarkdownTree } from '../../src/main/content/markdown/syntax-tree'
const t = parseMarkdownTree('---\na: 1\n---\n\n# Hello *x*\n\n{% hint style="info" %}\nhi\n{% endhint %}\n\n<figure><img src="a b.png"></figure>\n\n[x](<a b.md>) ![y](.gitbook/assets/x.png "t")\n\n[r]: https://x.com\n')
console.log(JSON.stringify(t.children.map(c=>({t:c.type,p:[c.position?.start.offset,c.position?.end.offset]}))))
console.log(JSON.stringify(t.children[4]))
