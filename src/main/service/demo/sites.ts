import { slugify } from '../../content/gitsync/slug'
import { defaultSiteCustomization, mergeSettings } from '../api/serializers/site-customization'
import { newId } from '../store/ids'
import type { ServiceStore } from '../store/service-store'
import { SiteStructureRepository, type SiteSectionRecord } from '../store/site-structure'
import { SitesRepository, type Site } from '../store/sites'
import { SpacesRepository } from '../store/spaces'

/**
 * The demo organization's docs site: published, with a "Guides" section at the root (the default)
 * and a "Reference" section group holding an "API" section, plus customization (colours, favicon,
 * an announcement, header links) and a title override on the API variant. Needs at least one space;
 * the second section shows the second space when there is one. (`_ownerId` keeps the seeders' common
 * signature: nothing on a site records who created it.)
 */
export function seedSitesDemo(store: ServiceStore, orgId: string, _ownerId: string, spaceIds: string[]): Site {
  if (spaceIds.length === 0) throw new Error('the demo site needs at least one space')
  const spaces = store.repo(SpacesRepository)
  const spaceTitle = (id: string) => spaces.get(id)?.title ?? 'Space'
  return store.transaction(() => {
    const sites = store.repo(SitesRepository)
    const structure = store.repo(SiteStructureRepository)
    const created = sites.create({ orgId, title: 'Quire Docs', type: 'basic', visibility: 'public' })

    const guides: SiteSectionRecord = {
      id: newId(),
      siteId: created.id,
      groupId: null,
      position: 0,
      title: 'Guides',
      path: 'guides',
      data: { icon: 'book-open', description: 'Learn Quire step by step' },
    }
    const groupId = newId()
    structure.insertSection(guides)
    structure.insertGroup({ id: groupId, siteId: created.id, parentId: null, position: 1, title: 'Reference', data: { icon: 'code' } })
    const api: SiteSectionRecord = {
      id: newId(),
      siteId: created.id,
      groupId,
      position: 0,
      title: 'API',
      path: 'api',
      data: { icon: 'terminal', description: 'Every endpoint, with examples' },
    }
    structure.insertSection(api)

    const addVariant = (sectionId: string, spaceId: string, position: number, titleOverride?: string) => {
      const id = newId()
      structure.insertSiteSpace({
        id,
        siteId: created.id,
        sectionId,
        spaceId,
        position,
        path: slugify(spaceTitle(spaceId)),
        data: {},
        customization: titleOverride ? { title: titleOverride } : null,
      })
      return id
    }
    addVariant(guides.id, spaceIds[0], 0)
    if (spaceIds[2]) addVariant(guides.id, spaceIds[2], 1)
    addVariant(api.id, spaceIds[1] ?? spaceIds[0], 0, 'API Reference (v1)')

    sites.setCustomization(
      created.id,
      mergeSettings(defaultSiteCustomization(), {
        title: 'Quire Docs',
        styling: { primaryColor: { light: '#6D28D9', dark: '#A78BFA' }, corners: 'rounded' },
        favicon: { emoji: '\u{1F4DA}' },
        announcement: { enabled: true, message: 'Welcome to the Quire demo site', style: 'info' },
        header: {
          links: [
            { title: 'Guides', to: { kind: 'space', space: spaceIds[0] }, links: [] },
            { title: 'Status', to: { kind: 'url', url: 'https://status.quire.local' }, links: [] },
          ],
        },
        feedback: { enabled: true },
      }),
    )
    const site = sites.update(created.id, { published: true, data: { basename: 'docs' } })
    return site
  })
}
