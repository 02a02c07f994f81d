import type { ExtraOperation } from '../types'
import { pathParam, ref } from './shared'

// Site operations of the interface document that the published spec lacks (section group sections):
// "POST /{siteSectionGroupId}/sections, body: sectionId (required), 201 group" and "DELETE
// /{siteSectionGroupId}/sections/... removes a section from the group" (tail and response not shown:
// the section id, answered with the group as it now is).
const groupPath = '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections'
const groupParams = [pathParam('organizationId'), pathParam('siteId'), pathParam('siteSectionGroupId')]

/**
 * The document's "Site section group": `object`, `id`, `title` (1..100, required), `sectionGroup`
 * (parent id), `children` (the sections it holds), `icon` (max 50). Held together with the published
 * `SiteSectionGroup` component, which says the same of the same object in more detail.
 */
const documentedGroup = {
  type: 'object',
  required: ['object', 'id', 'title', 'children'],
  properties: {
    object: { const: 'site-section-group' },
    id: { type: 'string', minLength: 1 },
    title: { type: 'string', minLength: 1, maxLength: 100 },
    sectionGroup: { type: 'string' },
    children: {
      type: 'array',
      items: { type: 'object', required: ['object', 'id'], properties: { object: { enum: ['site-section', 'site-section-group'] }, id: { type: 'string' } } },
    },
    icon: { type: 'string', maxLength: 50 },
  },
}
const groupResponse = { allOf: [documentedGroup, ref('SiteSectionGroup')] }

export const siteExtraOperations: ExtraOperation[] = [
  {
    operationId: 'addSiteSectionToSectionGroup',
    method: 'post',
    path: groupPath,
    parameters: groupParams,
    requestBody: {
      required: true,
      schema: { type: 'object', required: ['sectionId'], properties: { sectionId: { type: 'string', minLength: 1 } } },
    },
    responses: { '201': groupResponse },
  },
  {
    operationId: 'removeSiteSectionFromSectionGroup',
    method: 'delete',
    path: `${groupPath}/{siteSectionId}`,
    parameters: [...groupParams, pathParam('siteSectionId')],
    responses: { '200': groupResponse },
  },
]
