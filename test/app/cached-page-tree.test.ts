import { describe, expect, it } from 'vitest'
import { cachedPageTree } from '../../src/main/app/cached-page-tree'
import type { RemotePageRow } from '../../src/main/engine/cache/page-tables'

describe('the offline page picker: the cached tree in tree order with depths', () => {
  it('orders siblings by position, nests children under their page, keeps a group’s pages at its depth and leaves out groups and links', () => {
    const row = (id: string, position: number, parentId?: string, kind = 'document'): RemotePageRow => ({ id, position, kind, title: id.toUpperCase(), ...(parentId ? { parentId } : {}), gitPath: `${id}.md` })
    // Stored by (parent, position) as the cache reads them: not tree order.
    const rows = [row('guide', 1), row('home', 0), row('group', 2, undefined, 'group'), row('link', 3, undefined, 'link'), row('install', 1, 'guide'), row('basics', 0, 'guide'), row('deep', 0, 'basics'), row('grouped', 0, 'group'), row('orphan', 9, 'missing')]
    expect(cachedPageTree(rows, (r) => r.gitPath).map((p) => [p.id, p.depth, p.path])).toEqual([
      ['home', 0, 'home.md'],
      ['guide', 0, 'guide.md'],
      ['basics', 1, 'basics.md'],
      ['deep', 2, 'deep.md'],
      ['install', 1, 'install.md'],
      ['grouped', 0, 'grouped.md'],
      ['orphan', 0, 'orphan.md'],
    ])
  })
})
