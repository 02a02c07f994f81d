/**
 * Derived views of a revision's content for the service: link reports, file backlinks and search.
 * Pure: it reads a revision tree and its blobs through `RevisionSource`, never the database.
 */
export { LinkResolver, type LinkStatus, type LinkTarget, type ResolvedLink } from './link-resolution'
export {
  RevisionLinks,
  linkStats,
  newlyBroken,
  targetKey,
  type LinkOccurrence,
  type LinkReportEntry,
  type LinkStats,
  type RevisionSource,
} from './link-report'
export { RevisionCache } from './revision-cache'
export { RevisionMap, type PageEntry } from './revision-map'
export { SearchIndex, type PageHit, type SectionHit } from './search-index'
export { pageSections, type PageSection } from './sections'
export { excerpt, foldText, tokenize } from './text'
