import { defaultSchema, type Options as Schema } from 'rehype-sanitize'

/**
 * What a page preview may hold: GitHub's safe subset (the one comments are sanitized with, rehype-sanitize's
 * default), plus the few elements GitBook pages use (`figure`, `mark`, MathML from KaTeX) and the `gb-`
 * classes the preview gives its blocks. Taken away: `picture`/`source` (a `srcset` would fetch), and every
 * image address but `data:`: the preview has already replaced each image by the workspace file's bytes or
 * by a placeholder, so an `http` source left over can only be a way around that.
 */

/** The preview's own classes; an author's `class="..."` in raw HTML keeps only these. */
const GB_CLASS: [string, RegExp] = ['className', /^gb-[a-z0-9-]+$/]

const MATHML_TAGS = ['math', 'semantics', 'annotation', 'mrow', 'mi', 'mo', 'mn', 'ms', 'mtext', 'mspace', 'msup', 'msub', 'msubsup', 'mfrac', 'msqrt', 'mroot', 'mover', 'munder', 'munderover', 'mtable', 'mtr', 'mtd', 'mstyle', 'mpadded', 'mphantom', 'menclose']

const MATHML_ATTRIBUTES: Schema['attributes'] = {
  math: ['display', 'xmlns'],
  annotation: ['encoding'],
  mo: ['stretchy', 'fence', 'separator', 'lspace', 'rspace', 'form', 'minsize', 'maxsize', 'movablelimits', 'accent'],
  mi: ['mathvariant'],
  mn: ['mathvariant'],
  mtext: ['mathvariant'],
  mstyle: ['displaystyle', 'scriptlevel', 'mathvariant'],
  mspace: ['width', 'height', 'depth'],
  mpadded: ['width', 'height', 'depth', 'lspace', 'voffset'],
  mtable: ['columnalign', 'rowspacing', 'columnspacing', 'columnlines', 'rowlines', 'displaystyle'],
  mtr: ['columnalign'],
  mtd: ['columnalign'],
  mfrac: ['linethickness'],
  mover: ['accent'],
  munder: ['accentunder'],
  munderover: ['accent', 'accentunder'],
  menclose: ['notation'],
}

const base = defaultSchema.attributes ?? {}
type Definitions = NonNullable<Schema['attributes']>[string]
/** A tag's default attributes, its `className` values joined with the `gb-` ones (the sanitizer reads one definition per name). */
function withGb(tag: string, ...more: Definitions): Definitions {
  const own = base[tag] ?? []
  const isClass = (d: Definitions[number]) => Array.isArray(d) && d[0] === 'className'
  const values = own.filter(isClass).flatMap((d) => (d as unknown[]).slice(1)) as Array<string | RegExp>
  return [...own.filter((d) => !isClass(d)), ['className', ...values, GB_CLASS[1]], ...more]
}

export const PREVIEW_SCHEMA: Schema = {
  ...defaultSchema,
  tagNames: [...(defaultSchema.tagNames ?? []).filter((t) => t !== 'picture' && t !== 'source'), 'figure', 'figcaption', 'mark', 'u', 'abbr', ...MATHML_TAGS],
  attributes: {
    ...base,
    ...MATHML_ATTRIBUTES,
    // Page links carry the page they open (the app opens its preview); tabs their titles; hints their role.
    a: withGb('a', 'dataPreviewPath', 'dataPreviewAnchor', 'title'),
    div: withGb('div', 'dataTitle', ['role', 'note']),
    span: withGb('span', 'title'),
    p: withGb('p'),
    figure: [GB_CLASS],
    figcaption: [GB_CLASS],
    ol: withGb('ol'),
    li: withGb('li'),
    details: withGb('details'),
    summary: withGb('summary'),
    abbr: ['title'],
    img: withGb('img', 'alt', 'width', 'height'),
  },
  protocols: { ...defaultSchema.protocols, src: ['data'], longDesc: [], cite: ['http', 'https'] },
}
