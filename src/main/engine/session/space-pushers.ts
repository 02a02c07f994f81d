import type { AccountRow, CacheRepository } from '../cache/cache-repository'
import type { CommentsRepository } from '../comments/comments-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { SpacePusher } from '../push/space-pusher'
import { spaceFolderPath } from '../sync/sync-engine'
import type { WatchedSpace } from '../watch/watcher'

/** One SpacePusher per selected space with a folder, kept while the folder stays where it is. */
export class SpacePushers {
  private readonly byFolder = new Map<string, SpacePusher>()

  constructor(
    private readonly o: {
      cache: CacheRepository
      outbox: OutboxRepository
      comments: CommentsRepository
      gateway: ApiGateway
      account: AccountRow
      workspace: () => string
      now?: () => Date
      deletionQuietMs?: number
    },
  ) {}

  /** The spaces being synced that have a folder (the sync-down engine names it on the first pass). */
  spaces(): WatchedSpace[] {
    const workspace = this.o.workspace()
    return this.o.cache.selectedSpaces().flatMap((space) => {
      const folder = spaceFolderPath(this.o.cache, workspace, space)
      return folder ? [{ spaceId: space.id, folder }] : []
    })
  }

  of(spaceId: string): SpacePusher | undefined {
    const space = this.spaces().find((s) => s.spaceId === spaceId)
    if (!space) return undefined
    const key = `${spaceId}\n${space.folder}`
    let pusher = this.byFolder.get(key)
    if (!pusher) {
      pusher = new SpacePusher({ ...this.o, spaceId, folder: space.folder, userId: this.o.account.userId })
      this.byFolder.set(key, pusher)
    }
    return pusher
  }
}
