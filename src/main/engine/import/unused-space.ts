import { ChangeRequestStatus, GitBookAPIError } from '@gitbook/api'
import type { CacheRepository } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'

export interface UnusedSpaceContext {
  gateway: ApiGateway
  cache: CacheRepository
  outbox: OutboxRepository
  accountId: string
  spaceId: string
}

/**
 * What, if anything, of an import reached the space: a change request (the content API's, open or a
 * draft), a revision after the space's first (a Git import, a merge), an import still running, or work
 * the outbox sent or holds. Undefined when nothing did: the space is as it was created.
 */
export async function whatReachedSpace(ctx: UnusedSpaceContext): Promise<string | undefined> {
  const { gateway, outbox, spaceId } = ctx
  if (outbox.session(spaceId) || outbox.entries(spaceId).length > 0 || outbox.unfinished(spaceId).length > 0) return 'the outbox holds work for it'
  const spaces = gateway.client.spaces
  for (const status of [ChangeRequestStatus.Draft, ChangeRequestStatus.Open]) {
    const listed = (await spaces.listChangeRequestsForSpace(spaceId, { status, limit: 1 })).data.items
    if (listed.length > 0) return `it has a change request (${listed[0].id})`
  }
  const revision = (await spaces.getCurrentRevision(spaceId, { metadata: false })).data
  if (revision.parents.length > 0) return `its content is a later revision (${revision.id}) than the one it was created with`
  try {
    const operation = (await spaces.getSpaceGitInfo(spaceId)).data.operation
    if (operation?.state === 'running') return 'a Git import is still running in it'
  } catch (error) {
    if (!(error instanceof GitBookAPIError && error.code === 404)) throw error
  }
  return undefined
}

/**
 * Deletes a space an import created when nothing of the import reached it (the import failed first),
 * so a failed import leaves no empty space behind; the cache forgets the selection of it. Says what
 * was done, for the writer: deleted, or kept and why.
 */
export async function deleteIfUnused(ctx: UnusedSpaceContext, label: string): Promise<{ deleted: boolean; said: string }> {
  let reached: string | undefined
  try {
    reached = await whatReachedSpace(ctx)
  } catch (error) {
    return { deleted: false, said: `the space ${label} it created is kept: whether anything reached it could not be read (${error instanceof Error ? error.message : String(error)})` }
  }
  if (reached) return { deleted: false, said: `the space ${label} it created is kept: ${reached}; run the same command again to go on` }
  try {
    await ctx.gateway.client.spaces.deleteSpaceById(ctx.spaceId)
  } catch (error) {
    return { deleted: false, said: `the space ${label} it created holds nothing but could not be deleted (${error instanceof Error ? error.message : String(error)}); delete it on the service` }
  }
  const { cache } = ctx
  const organizations = cache.organizations(ctx.accountId)
  cache.setSelection({
    organizations: organizations.filter((o) => o.selected).map((o) => o.id),
    collections: organizations.flatMap((o) => cache.collections(o.id).filter((c) => c.selected).map((c) => c.id)),
    spaces: cache.spaces().filter((s) => s.selected && s.id !== ctx.spaceId).map((s) => s.id),
  })
  return { deleted: true, said: `the space ${label} it created was deleted: nothing had reached it` }
}
