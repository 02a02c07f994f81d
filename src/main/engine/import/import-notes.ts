/**
 * What an import says about the tree: each thing the service could not take through the content API
 * (or that is not part of the space at all), with the path it concerns and the reason, in words.
 */
export type ImportNoteKind =
  /** A `.md` file SUMMARY.md does not list: not a page (Git Sync reads it so). */
  | 'not-a-page'
  /** A file that is not space content (`.gitbook/tags.yaml`, a script, an image outside `.gitbook/assets/`). */
  | 'not-content'
  /** SUMMARY.md lists a file the tree does not have. */
  | 'missing'
  /** A `## Group` heading: the content API cannot create groups. */
  | 'group'
  /** A `***` separator in SUMMARY.md: nothing in the content model keeps it. */
  | 'separator'
  /** An entry linking to a URL: the content API cannot create link pages. */
  | 'link-entry'
  /** An entry linking to a section of a page (`page.md#anchor`): not a page of its own. */
  | 'anchor-entry'
  /** A file over a size limit. */
  | 'too-large'
  /** A file the push did not send (an asset no page links to, a file it held back). */
  | 'not-sent'
  /** A name the import does not read (a symbolic link, a hidden or editor's file). */
  | 'skipped'
  /** What the service reported while taking the files (the push path's own reports). */
  | 'push'
  /** A page or SUMMARY.md that will not come back byte for byte, and why. */
  | 'differs'
  /** A page that will come back at another path. */
  | 'moved'
  /** A page whose links to other pages could not be re-pointed to where those pages came back. */
  | 'links'

export interface ImportNote {
  kind: ImportNoteKind
  /** Path in the imported tree (relative to its root). */
  path: string
  reason: string
}
