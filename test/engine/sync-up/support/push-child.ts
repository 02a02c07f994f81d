/**
 * A writer's Quire as its own process, for crash tests: pushes the space until the outbox is empty,
 * announcing every HTTP answer on stdout (`answer <n>`) BEFORE the engine sees it, so the parent can
 * SIGKILL it in the window between "the service did it" and "Quire wrote down that it did".
 *
 * argv: JSON {remote, seeded, dir}
 */
import { announcingFetch } from './announcing-fetch'
import { Workstation, type Remote, type SeededSpace } from './workspace'

const { remote, seeded, dir } = JSON.parse(process.argv[2]) as { remote: Remote; seeded: SeededSpace; dir: string }
const ws = new Workstation(remote, seeded, dir, { gateway: { fetch: announcingFetch() } })
try {
  for (let round = 0; round < 10; round++) {
    const result = await ws.push()
    if (result.settled) await ws.pull()
    if (!result.stopped && ws.outbox.unfinished(seeded.spaceId).length === 0 && result.planned === 0) break
  }
  process.stdout.write(`done ${JSON.stringify({ unfinished: ws.outbox.unfinished(seeded.spaceId).length })}\n`)
} finally {
  ws.close()
}
