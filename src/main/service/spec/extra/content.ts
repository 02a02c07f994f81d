import type { ExtraOperation } from '../types'
import { listOf, pagedParams, pathParam, ref } from './shared'

// Link reports, file backlinks and space transfer are in the interface document but not in the
// published spec; these schemas are written from the document's "Link report item" and "Spaces".
const contentReference = {
  type: 'object',
  required: ['kind'],
  properties: {
    // The kinds of the published spec's content references (ContentRefPage/File/URL/Anchor).
    kind: { enum: ['page', 'file', 'url', 'anchor'] },
    organization: { type: 'string' },
    space: { type: 'string' },
    versionContext: { type: 'string' },
    file: { type: 'string' },
    page: { type: 'string' },
    url: { type: 'string' },
    anchor: { type: 'string' },
  },
}

const linkReportItem = {
  type: 'object',
  required: ['status', 'relation', 'targetReference', 'locationReferences'],
  additionalProperties: false,
  properties: {
    status: { enum: ['ok', 'broken', 'in-app'] },
    relation: { type: 'string' },
    targetReference: contentReference,
    locationReferences: { type: 'array', items: contentReference },
  },
}

const linkStats = {
  stats: {
    type: 'object',
    required: ['total', 'broken'],
    properties: {
      total: { type: 'integer', minimum: 0 },
      broken: {
        type: 'object',
        required: ['total', 'changeRequest'],
        properties: { total: { type: 'integer', minimum: 0 }, changeRequest: { type: 'integer', minimum: 0 } },
      },
    },
  },
}

const linkReport = listOf(linkReportItem, linkStats)
const statusFilter = { name: 'status', in: 'query' as const, schema: { enum: ['ok', 'broken', 'in-app'] } }
const backlinks = listOf(contentReference)
const changeRequestId = pathParam('changeRequestId')

export const contentExtraOperations: ExtraOperation[] = [
  {
    operationId: 'transferSpace',
    method: 'post',
    path: '/spaces/{spaceId}/transfer',
    parameters: [pathParam('spaceId')],
    requestBody: {
      required: true,
      schema: { type: 'object', required: ['organization'], additionalProperties: false, properties: { organization: { type: 'string', minLength: 1 } } },
    },
    responses: { '200': ref('Space') },
  },
  {
    operationId: 'listSpaceLinks',
    method: 'get',
    path: '/spaces/{spaceId}/links',
    parameters: [pathParam('spaceId'), ...pagedParams, statusFilter],
    responses: { '200': linkReport },
  },
  {
    operationId: 'listPageLinks',
    method: 'get',
    path: '/spaces/{spaceId}/content/page/{pageId}/links',
    parameters: [pathParam('spaceId'), pathParam('pageId'), ...pagedParams, statusFilter],
    responses: { '200': linkReport },
  },
  {
    operationId: 'listPageLinksInChangeRequest',
    method: 'get',
    path: '/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links',
    parameters: [pathParam('spaceId'), changeRequestId, pathParam('pageId'), ...pagedParams, statusFilter],
    responses: { '200': linkReport },
  },
  {
    operationId: 'listFileBacklinks',
    method: 'get',
    path: '/spaces/{spaceId}/content/files/{fileId}/backlinks',
    parameters: [pathParam('spaceId'), pathParam('fileId'), ...pagedParams],
    responses: { '200': backlinks },
  },
  {
    operationId: 'listFileBacklinksInChangeRequest',
    method: 'get',
    path: '/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks',
    parameters: [pathParam('spaceId'), changeRequestId, pathParam('fileId'), ...pagedParams],
    responses: { '200': backlinks },
  },
]
