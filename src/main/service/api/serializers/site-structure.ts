import type { SectionGroupRecord, SiteSectionRecord, SiteSpaceRecord } from '../../store/site-structure'
import { SpacesRepository, type Space } from '../../store/spaces'
import { spaceJson } from './space'
import { hasAdvancedCustomization } from './site-customization'
import { publishedSiteUrl, type SiteView } from './site'

function spaceOf(view: SiteView, siteSpace: SiteSpaceRecord): Space {
  const space = view.store.repo(SpacesRepository).get(siteSpace.spaceId)
  // The foreign key removes site spaces with their space, so a missing one means a broken database.
  if (!space) throw new Error(`site space ${siteSpace.id} points at missing space ${siteSpace.spaceId}`)
  return space
}

/** A site space's title: its customization's title override, else the title of its space. */
export function siteSpaceTitle(siteSpace: SiteSpaceRecord, space: Space): string {
  const override = siteSpace.customization?.title
  return typeof override === 'string' ? override : space.title
}

/**
 * Published view: drafts, spaces in their deletion window and spaces since transferred to another
 * organization are not part of the live site.
 */
function isLive(view: SiteView, siteSpace: SiteSpaceRecord): boolean {
  const space = spaceOf(view, siteSpace)
  return !siteSpace.data.draft && space.deletedAt === null && space.orgId === view.site.orgId
}

// Slugs keep letters of every script: published URLs carry paths percent-encoded.
function sectionUrlTail(view: SiteView, section: SiteSectionRecord): string {
  return view.tree.defaultSectionId() === section.id ? '' : `/${encodeURIComponent(section.path)}`
}

function siteSpaceUrlTail(view: SiteView, siteSpace: SiteSpaceRecord): string {
  const section = siteSpace.sectionId ? view.tree.sectionsById.get(siteSpace.sectionId) : undefined
  const prefix = section ? sectionUrlTail(view, section) : ''
  return view.tree.defaultSiteSpaceId(siteSpace.sectionId) === siteSpace.id ? prefix : `${prefix}/${encodeURIComponent(siteSpace.path)}`
}

export function siteSpaceJson(view: SiteView, siteSpace: SiteSpaceRecord) {
  const space = spaceOf(view, siteSpace)
  const published = publishedSiteUrl(view, siteSpaceUrlTail(view, siteSpace))
  return {
    object: 'site-space' as const,
    id: siteSpace.id,
    path: siteSpace.path,
    ...(siteSpace.sectionId ? { section: siteSpace.sectionId } : {}),
    space: spaceJson(view.store, space, view.userId, view.origin),
    title: siteSpaceTitle(siteSpace, space),
    default: view.tree.defaultSiteSpaceId(siteSpace.sectionId) === siteSpace.id,
    ...(siteSpace.data.condition !== undefined ? { condition: siteSpace.data.condition } : {}),
    ...(siteSpace.data.pageId !== undefined ? { pageId: siteSpace.data.pageId } : {}),
    draft: siteSpace.data.draft ?? false,
    hidden: siteSpace.data.hidden ?? false,
    hasAdvancedCustomizationFeature: hasAdvancedCustomization(view.site.type),
    urls: published ? { published } : {},
  }
}

/** Site spaces of a section (or of the site root) as the view shows them. */
export function siteSpacesOf(view: SiteView, sectionId: string | null): SiteSpaceRecord[] {
  const members = view.tree.siteSpacesIn(sectionId)
  return view.publishedOnly ? members.filter((s) => isLive(view, s)) : members
}

export function sectionJson(view: SiteView, section: SiteSectionRecord) {
  const published = publishedSiteUrl(view, sectionUrlTail(view, section))
  const d = section.data
  return {
    object: 'site-section' as const,
    id: section.id,
    title: section.title,
    ...(d.localizedTitle ? { localizedTitle: d.localizedTitle } : {}),
    ...(d.description !== undefined ? { description: d.description } : {}),
    ...(d.localizedDescription ? { localizedDescription: d.localizedDescription } : {}),
    default: view.tree.defaultSectionId() === section.id,
    draft: d.draft ?? false,
    path: section.path,
    ...(d.condition !== undefined ? { condition: d.condition } : {}),
    ...(section.groupId ? { sectionGroup: section.groupId } : {}),
    siteSpaces: siteSpacesOf(view, section.id).map((s) => siteSpaceJson(view, s)),
    urls: published ? { published } : {},
    ...(d.icon !== undefined ? { icon: d.icon } : {}),
  }
}

type SectionJson = ReturnType<typeof sectionJson>
export interface SectionGroupJson {
  object: 'site-section-group'
  id: string
  title: string
  localizedTitle?: Record<string, string>
  sections: SectionJson[]
  sectionGroup?: string
  draft: boolean
  children: Array<SectionJson | SectionGroupJson>
  icon?: string
}

/** Sections and groups of a container (`null`: the site root) as the view shows them, in order. */
export function containerJson(view: SiteView, container: string | null): Array<SectionJson | SectionGroupJson> {
  return view.tree.items(container).flatMap((item): Array<SectionJson | SectionGroupJson> => {
    if (item.kind === 'section') {
      const section = view.tree.sectionsById.get(item.id) as SiteSectionRecord
      return view.publishedOnly && section.data.draft ? [] : [sectionJson(view, section)]
    }
    const group = view.tree.groupsById.get(item.id) as SectionGroupRecord
    return view.publishedOnly && group.data.draft ? [] : [sectionGroupJson(view, group)]
  })
}

export function sectionGroupJson(view: SiteView, group: SectionGroupRecord): SectionGroupJson {
  const children = containerJson(view, group.id)
  return {
    object: 'site-section-group',
    id: group.id,
    title: group.title,
    ...(group.data.localizedTitle ? { localizedTitle: group.data.localizedTitle } : {}),
    sections: children.filter((c): c is SectionJson => c.object === 'site-section'),
    ...(group.parentId ? { sectionGroup: group.parentId } : {}),
    draft: group.data.draft ?? false,
    children,
    ...(group.data.icon !== undefined ? { icon: group.data.icon } : {}),
  }
}

/** The spec's `SiteStructure`: sections and groups when the site has sections, else its site spaces. */
export function structureJson(view: SiteView) {
  if (view.tree.hasSections) return { type: 'sections' as const, structure: containerJson(view, null) }
  return { type: 'siteSpaces' as const, structure: siteSpacesOf(view, null).map((s) => siteSpaceJson(view, s)) }
}
