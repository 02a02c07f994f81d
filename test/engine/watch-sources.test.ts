import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { FileEventSourceFactory, FileEventSourceOptions } from '../../src/main/engine/watch/event-source'
import { parcelSource, type ParcelWatcherModule } from '../../src/main/engine/watch/parcel-source'
import { WorkspaceWatcher } from '../../src/main/engine/watch/watcher'

const root = path.resolve('/workspace')
const folderA = path.join(root, 'space-a')
const folderB = path.join(root, 'space-b')

type ParcelCallback = Parameters<ParcelWatcherModule['subscribe']>[1]

/** A stand-in for @parcel/watcher that records subscriptions and lets the test fire their callbacks. */
function fakeParcel() {
  const subscriptions = new Map<string, { callback: ParcelCallback; ignore?: string[]; closed: boolean }>()
  const parcel: ParcelWatcherModule = {
    async subscribe(dir, callback, options) {
      const entry = { callback, ignore: options?.ignore, closed: false }
      subscriptions.set(dir, entry)
      return {
        async unsubscribe() {
          entry.closed = true
        },
      }
    },
  }
  return { parcel, subscriptions }
}

/** A source the test drives by hand, to check what the watcher makes of the events. */
function manualSource() {
  let given: FileEventSourceOptions | undefined
  const factory: FileEventSourceFactory = (options) => {
    given = options
    return { start: async () => {}, close: async () => {} }
  }
  return {
    factory,
    emit: (kind: 'add' | 'change' | 'unlink', full: string) => {
      if (!given) throw new Error('the watcher has not started its source')
      if (!given.ignored(full)) given.onEvent(kind, full)
    },
  }
}

async function until(condition: () => boolean, what: string, ms = 10_000) {
  const deadline = Date.now() + ms
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

describe('parcelSource', () => {
  it('subscribes to each space folder without .git, maps event kinds, drops ignored paths and unsubscribes on close', async () => {
    const { parcel, subscriptions } = fakeParcel()
    const events: string[] = []
    const errors: unknown[] = []
    const source = parcelSource(parcel)({
      folders: [folderA, folderB],
      ignored: (full) => full.endsWith('.swp'),
      onEvent: (kind, full) => events.push(`${kind} ${path.relative(root, full)}`),
      onError: (error) => errors.push(error),
    })
    await source.start()
    expect([...subscriptions.keys()]).toEqual([folderA, folderB])
    expect(subscriptions.get(folderA)?.ignore).toEqual(['**/.git', '**/.git/**'])

    subscriptions.get(folderA)?.callback(null, [
      { type: 'create', path: path.join(folderA, 'new.md') },
      { type: 'update', path: path.join(folderA, 'page.md') },
      { type: 'delete', path: path.join(folderA, 'old.md') },
      { type: 'create', path: path.join(folderA, '.page.md.swp') },
    ])
    subscriptions.get(folderB)?.callback(new Error('inotify limit'), [])
    expect(events).toEqual([`add ${path.join('space-a', 'new.md')}`, `change ${path.join('space-a', 'page.md')}`, `unlink ${path.join('space-a', 'old.md')}`])
    expect(errors).toHaveLength(1)

    await source.close()
    expect([...subscriptions.values()].every((s) => s.closed)).toBe(true)
  })
})

describe('WorkspaceWatcher over a source', () => {
  it('reports a removal and a creation that comes after the debounce but within the rename window in one onChange, and not ignored names', async () => {
    const source = manualSource()
    const changes: { spaceId: string; paths: string[] }[] = []
    const watcher = new WorkspaceWatcher({
      spaces: [
        { spaceId: 'a', folder: folderA },
        { spaceId: 'b', folder: folderB },
      ],
      debounceMs: 20,
      renameWindowMs: 2000,
      source: source.factory,
      onChange: (spaceId, paths) => changes.push({ spaceId, paths }),
    })
    await watcher.start()

    source.emit('unlink', path.join(folderA, 'old', 'page.md'))
    // A move seen as a removal, then (longer than the debounce later) a creation.
    await new Promise((resolve) => setTimeout(resolve, 100))
    source.emit('add', path.join(folderA, 'new', 'page.md'))
    source.emit('change', path.join(folderA, '.git', 'index'))
    source.emit('change', path.join(folderA, 'drafts', '.page.md.swp'))
    source.emit('change', path.join(folderA, '.hidden', 'page.md'))
    source.emit('change', path.join(folderB, '.gitbook', 'assets', 'image.png'))
    await until(() => changes.length === 2, 'both spaces to be told')
    await watcher.close()

    expect(changes).toEqual([
      { spaceId: 'b', paths: ['.gitbook/assets/image.png'] },
      { spaceId: 'a', paths: ['new/page.md', 'old/page.md'] },
    ])
  })
})
