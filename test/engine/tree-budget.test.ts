/**
 * The tree budget (issue 26, item 4): how much page markdown a pass keeps from a revision tree before it
 * reads pages one by one, settable by QUIRE_TREE_BUDGET_BYTES (0: every page one by one, as against the
 * hosted service); and QUIRE_TEST_PROFILE, which starts the tests' service in the hosted profile.
 */
import type { RevisionPage } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { pageTextsFromTree, treeTextBudget } from '../../src/main/engine/sync/remote-snapshot'
import { startTestService, testProfile } from '../support/service'

const pageOf = (id: string, markdown: string) => ({ id, title: id, type: 'document', markdown, git: { oid: gitBlobOid(markdown), path: `${id}.md` }, pages: [] }) as unknown as RevisionPage

const tree = { pages: [pageOf('a', '# A\n\nFirst.\n'), pageOf('b', '# B\n\nSecond.\n'), pageOf('c', '# C\n\nThird.\n')] }
const all = () => true
const saved = { budget: process.env.QUIRE_TREE_BUDGET_BYTES, profile: process.env.QUIRE_TEST_PROFILE }

afterEach(() => {
  for (const [name, value] of [['QUIRE_TREE_BUDGET_BYTES', saved.budget], ['QUIRE_TEST_PROFILE', saved.profile]] as const) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
})

describe('QUIRE_TREE_BUDGET_BYTES', () => {
  it('keeps every page text of a small tree by default, none at 0, and as many as fit otherwise', () => {
    delete process.env.QUIRE_TREE_BUDGET_BYTES
    expect([...pageTextsFromTree(tree, all).keys()]).toEqual(['a', 'b', 'c'])
    process.env.QUIRE_TREE_BUDGET_BYTES = '0'
    expect(pageTextsFromTree(tree, all).size).toBe(0)
    process.env.QUIRE_TREE_BUDGET_BYTES = '30'
    expect([...pageTextsFromTree(tree, all).keys()]).toEqual(['a', 'b'])
  })

  it('refuses a value that is not a number of bytes, naming the variable', () => {
    expect(() => treeTextBudget({ QUIRE_TREE_BUDGET_BYTES: '16MB' })).toThrow(/QUIRE_TREE_BUDGET_BYTES must be a number of bytes/)
    expect(() => treeTextBudget({ QUIRE_TREE_BUDGET_BYTES: '-1' })).toThrow(/QUIRE_TREE_BUDGET_BYTES/)
    expect(treeTextBudget({})).toBe(16 * 1024 * 1024)
  })
})

describe('QUIRE_TEST_PROFILE', () => {
  it('starts the tests\' service in the hosted profile when it says hosted, friendly otherwise', async () => {
    process.env.QUIRE_TEST_PROFILE = 'hosted'
    const hosted = await startTestService()
    try {
      expect(hosted.service.profile).toBe('hosted')
      expect(hosted.service.fileOrigin).toBeDefined()
    } finally {
      await hosted.close()
    }
    delete process.env.QUIRE_TEST_PROFILE
    expect(testProfile()).toBe('friendly')
    process.env.QUIRE_TEST_PROFILE = 'hostd'
    expect(() => testProfile()).toThrow(/QUIRE_TEST_PROFILE/)
  })
})
