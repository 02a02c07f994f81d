import { ChangeRequestStatus, type ChangeRequest, type Space } from '@gitbook/api'
import type { ChangeRequestFilter, ChangeRequestSummary } from '../../shared/contract'
import { type ApiGateway, paginate } from '../engine'
import { fromApiError } from './errors'

/** Change requests that can still move: open for review, or drafts. */
const LIVE_STATUSES = [ChangeRequestStatus.Open, ChangeRequestStatus.Draft]

/** The service's statuses a list filter asks for (live when none is given). */
export function statusesOf(filter: ChangeRequestFilter | undefined): string[] {
  return filter === 'merged' ? [ChangeRequestStatus.Merged] : filter === 'archived' ? [ChangeRequestStatus.Archived] : LIVE_STATUSES
}

export interface SpaceRef {
  id: string
  title: string
}

export function summary(cr: ChangeRequest, space: Pick<Space, 'title' | 'permissions'>, userId: string): ChangeRequestSummary {
  const live = cr.status === 'open' || cr.status === 'draft'
  return {
    id: cr.id,
    spaceId: cr.space,
    spaceTitle: space.title,
    number: cr.number,
    subject: cr.subject,
    status: cr.status,
    outdated: cr.outdated,
    mine: cr.createdBy.id === userId,
    createdBy: cr.createdBy.displayName,
    updatedAt: cr.updatedAt,
    appUrl: cr.urls.app,
    revision: cr.revision,
    // The space's permissions say whether the caller may merge at all; only live ones can be merged.
    canMerge: live && space.permissions.merge,
  }
}

/** The writer's and the space's change requests, and the actions on one. Every call goes through the gateway. */
export class ChangeRequests {
  constructor(
    private readonly gateway: ApiGateway,
    private readonly userId: string,
    /** Keeps every change request read, so the list can be shown offline. */
    private readonly mirror?: { saveChangeRequest(spaceId: string, cr: ChangeRequest): void },
  ) {}

  async list(spaces: SpaceRef[], filter: { mine?: boolean; status?: ChangeRequestFilter }): Promise<ChangeRequestSummary[]> {
    const lists = await Promise.all(
      spaces.map(async (ref) => {
        try {
          const space = (await this.gateway.client.spaces.getSpaceById(ref.id)).data
          const out: ChangeRequestSummary[] = []
          for (const status of statusesOf(filter.status) as ChangeRequestStatus[]) {
            const items = paginate((page) => this.gateway.client.spaces.listChangeRequestsForSpace(ref.id, { status, page, limit: 100 }).then((r) => r.data))
            for await (const cr of items) {
              this.mirror?.saveChangeRequest(ref.id, cr)
              out.push(summary(cr, space, this.userId))
            }
          }
          return out
        } catch (error) {
          throw fromApiError(error, `Listing the change requests of ${ref.title}`)
        }
      }),
    )
    return lists
      .flat()
      .filter((cr) => !filter.mine || cr.mine)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
  }

  async get(spaceId: string, changeRequestId: string): Promise<ChangeRequestSummary> {
    try {
      const [space, cr] = await Promise.all([
        this.gateway.client.spaces.getSpaceById(spaceId).then((r) => r.data),
        this.gateway.client.spaces.getChangeRequestById(spaceId, changeRequestId).then((r) => r.data),
      ])
      this.mirror?.saveChangeRequest(spaceId, cr)
      return summary(cr, space, this.userId)
    } catch (error) {
      throw fromApiError(error, 'Reading the change request')
    }
  }

  async pdfUrl(spaceId: string, changeRequestId: string): Promise<string> {
    try {
      return String((await this.gateway.client.spaces.getChangeRequestPdf(spaceId, changeRequestId)).data.url)
    } catch (error) {
      throw fromApiError(error, 'Getting the PDF of the change request')
    }
  }
}
