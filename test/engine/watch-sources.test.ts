import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultSource } from '../../src/main/engine/watch/default-source'
import type { FileEventSourceFactory, FileEventSourceOptions } from '../../src/main/engine/watch/event-source'
import { parcelSource, type ParcelWatcherModule } from '../../src/main/engine/watch/parcel-source'
import { WorkspaceWatcher } from '../../src/main/engine/watch/watcher'
import { until as untilValue } from '../support/until'

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

// ------------------------------------------------------------------------------ real folders

const cleanup: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

/**
 * A WorkspaceWatcher with the session's default source (or `source`) over two fresh space folders,
 * recording every onChange. `seen(path)` waits until some onChange named it.
 */
async function watchedSpaces(source?: FileEventSourceFactory) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-watch-sources-'))
  const folders = { a: path.join(root, 'a'), b: path.join(root, 'b') }
  fs.mkdirSync(path.join(folders.a, 'guide'), { recursive: true })
  fs.mkdirSync(folders.b)
  fs.writeFileSync(path.join(folders.a, 'guide', 'page.md'), '# Page\n')
  fs.mkdirSync(path.join(folders.a, '.git', 'objects'), { recursive: true })
  const changes: { spaceId: string; paths: string[] }[] = []
  const errors: unknown[] = []
  const watcher = new WorkspaceWatcher({
    spaces: [
      { spaceId: 'a', folder: folders.a },
      { spaceId: 'b', folder: folders.b },
    ],
    debounceMs: 50,
    renameWindowMs: 1000,
    source,
    onChange: (spaceId, paths) => changes.push({ spaceId, paths }),
    onError: (error) => errors.push(error),
  })
  cleanup.push(async () => {
    await watcher.close()
    fs.rmSync(root, { recursive: true, force: true })
  })
  await watcher.start()
  const reported = (spaceId: string) => changes.filter((c) => c.spaceId === spaceId).flatMap((c) => c.paths)
  const seen = (relative: string, spaceId = 'a') =>
    untilValue(() => (reported(spaceId).includes(relative) ? true : undefined), () => `${spaceId}:${relative} in ${JSON.stringify(changes)}`, 20_000)
  return { folders, changes, errors, reported, seen, at: (relative: string) => path.join(folders.a, relative) }
}

describe('the default source (@parcel/watcher) over real folders', () => {
  it('reports files written at once into new nested folders, and later writes into their subfolders', async () => {
    const w = await watchedSpaces()
    // The native watcher alone misses most of these on Linux (parcel-bundler/watcher#97): several, to be sure.
    for (let i = 0; i < 6; i++) {
      fs.mkdirSync(w.at(`new-${i}/deeper/deepest`), { recursive: true })
      fs.writeFileSync(w.at(`new-${i}/deeper/deepest/at-once.md`), '# At once\n')
      fs.writeFileSync(w.at(`new-${i}/top.md`), '# Top\n')
    }
    for (let i = 0; i < 6; i++) {
      await w.seen(`new-${i}/deeper/deepest/at-once.md`)
      await w.seen(`new-${i}/top.md`)
    }
    for (let i = 0; i < 6; i++) fs.writeFileSync(w.at(`new-${i}/deeper/deepest/later.md`), '# Later\n')
    for (let i = 0; i < 6; i++) await w.seen(`new-${i}/deeper/deepest/later.md`)
    // A tree copied in whole, as a copy or an unzip makes it.
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-watch-outside-'))
    fs.mkdirSync(path.join(outside, 'unzipped', 'part', 'chapter'), { recursive: true })
    fs.writeFileSync(path.join(outside, 'unzipped', 'part', 'chapter', 'one.md'), '# One\n')
    fs.cpSync(path.join(outside, 'unzipped'), w.at('unzipped'), { recursive: true })
    fs.rmSync(outside, { recursive: true })
    await w.seen('unzipped/part/chapter/one.md')
    fs.writeFileSync(w.at('unzipped/part/chapter/two.md'), '# Two\n')
    await w.seen('unzipped/part/chapter/two.md')
    expect(w.errors).toEqual([])
  })

  it('reports a file rename in one onChange, a folder renamed with its subfolders at its new paths, and later writes there', async () => {
    const w = await watchedSpaces()
    fs.renameSync(w.at('guide/page.md'), w.at('guide/renamed.md'))
    const both = await untilValue(() => w.changes.find((c) => c.paths.includes('guide/renamed.md')), 'the rename', 20_000)
    expect(both.paths).toEqual(['guide/page.md', 'guide/renamed.md'])

    fs.mkdirSync(w.at('part/chapter'), { recursive: true })
    fs.writeFileSync(w.at('part/chapter/one.md'), '# One\n')
    await w.seen('part/chapter/one.md')
    fs.renameSync(w.at('part'), w.at('book'))
    await w.seen('book/chapter/one.md')
    fs.writeFileSync(w.at('book/chapter/two.md'), '# Two\n')
    await w.seen('book/chapter/two.md')
    // Moved to the other space: reported there.
    fs.renameSync(w.at('book'), path.join(w.folders.b, 'book'))
    await w.seen('book/chapter/one.md', 'b')
    fs.writeFileSync(path.join(w.folders.b, 'book', 'chapter', 'three.md'), '# Three\n')
    await w.seen('book/chapter/three.md', 'b')
  })

  it('reports a tree deleted, and a tree made again at the same place', async () => {
    const w = await watchedSpaces()
    fs.mkdirSync(w.at('tree/branch/leaf'), { recursive: true })
    fs.writeFileSync(w.at('tree/branch/leaf/page.md'), '# Leaf\n')
    await w.seen('tree/branch/leaf/page.md')
    const count = w.changes.length
    fs.rmSync(w.at('tree'), { recursive: true })
    await untilValue(() => (w.changes.slice(count).some((c) => c.paths.includes('tree')) ? true : undefined), 'the deletion of tree', 20_000)

    w.changes.length = 0
    fs.mkdirSync(w.at('tree/branch/leaf'), { recursive: true })
    fs.writeFileSync(w.at('tree/branch/leaf/again.md'), '# Again\n')
    await w.seen('tree/branch/leaf/again.md')
    fs.writeFileSync(w.at('tree/branch/leaf/after.md'), '# After\n')
    await w.seen('tree/branch/leaf/after.md')
    expect(w.errors).toEqual([])
  })

  it('does not report .git, editor temp files or hidden folders, in old folders or new ones', async () => {
    const w = await watchedSpaces()
    fs.writeFileSync(w.at('.git/objects/o1'), 'x')
    fs.writeFileSync(w.at('guide/.page.md.swp'), 'x')
    fs.writeFileSync(w.at('guide/page.md~'), 'x')
    fs.mkdirSync(w.at('fresh/.hidden/inner'), { recursive: true })
    fs.writeFileSync(w.at('fresh/.hidden/inner/secret.md'), 'x')
    fs.mkdirSync(w.at('fresh/.git'), { recursive: true })
    fs.writeFileSync(w.at('fresh/.git/HEAD'), 'x')
    fs.writeFileSync(w.at('fresh/page.md.tmp'), 'x')
    // Written last: once it is reported, anything above would have been too.
    fs.writeFileSync(w.at('guide/page.md'), '# Saved\n')
    await w.seen('guide/page.md')
    await w.seen('fresh')
    fs.writeFileSync(w.at('fresh/.hidden/inner/secret.md'), 'y')
    fs.writeFileSync(w.at('fresh/visible.md'), '# Visible\n')
    await w.seen('fresh/visible.md')
    expect(w.reported('a').filter((p) => /\.git|\.swp|~$|\.hidden|\.tmp$/.test(p))).toEqual([])
  })

  it('falls back to chokidar, saying so, when @parcel/watcher cannot be loaded', async () => {
    const w = await watchedSpaces(defaultSource({ loadParcel: () => Promise.reject(new Error('no prebuilt binary for this platform')) }))
    expect(w.errors.map(String)).toEqual([expect.stringContaining('could not be loaded (no prebuilt binary for this platform); watching with chokidar')])
    fs.writeFileSync(w.at('guide/page.md'), '# Saved\n')
    await w.seen('guide/page.md')
  })

  it('polls with chokidar when asked (network drives)', async () => {
    const w = await watchedSpaces(defaultSource({ usePolling: true, loadParcel: () => Promise.reject(new Error('not to be loaded when polling')) }))
    fs.writeFileSync(w.at('guide/new.md'), '# New\n')
    await w.seen('guide/new.md')
    expect(w.errors).toEqual([])
  })
})
