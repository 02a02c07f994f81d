import type { ExtraOperation } from '../types'
import { pathParam, ref } from './shared'

// Site operations of the interface document that the published spec lacks (section group sections):
// "POST /{siteSectionGroupId}/sections, body: sectionId (required), 201 group" and "DELETE
// /{siteSectionGroupId}/sections/... removes a section from the group" (tail and response not shown:
// the section id, answered with the group as it now is).
const groupPath = '/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections'
const groupParams = [pathParam('organizationId'), pathParam('siteId'), pathParam('siteSectionGroupId')]

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
    responses: { '201': ref('SiteSectionGroup') },
  },
  {
    operationId: 'removeSiteSectionFromSectionGroup',
    method: 'delete',
    path: `${groupPath}/{siteSectionId}`,
    parameters: [...groupParams, pathParam('siteSectionId')],
    responses: { '200': ref('SiteSectionGroup') },
  },
]
