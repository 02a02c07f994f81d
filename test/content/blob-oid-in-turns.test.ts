/** The oid hashed a slice per turn (blob-oid-in-turns.ts) is git's blob oid, whatever falls on a slice's edge. */
import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content/markdown/blob-oid'
import { gitBlobOidInTurns } from '../../src/main/content/markdown/blob-oid-in-turns'

describe('a blob oid hashed over several turns', () => {
  it("equals git's, with multi-byte characters and surrogate pairs across slice edges", async () => {
    const texts = ['', 'a', '# Title\n\nbody\n', 'ab😀cd😀😀e', 'é'.repeat(10) + '😀'.repeat(7), 'x\uD800y', 'end\uD83D', '\uDE00start']
    for (const text of texts) {
      for (const slice of [1, 2, 3, 5, 1024]) expect(await gitBlobOidInTurns(text, slice), `${JSON.stringify(text)} in slices of ${slice}`).toBe(gitBlobOid(text))
    }
  })

  it('equals it on a page file of a few MB in the default slices', async () => {
    const text = '# Big\n\n' + 'Paragraph with ünïcödé and 😀 emoji.\n\n'.repeat(100_000)
    expect(await gitBlobOidInTurns(text)).toBe(gitBlobOid(text))
  })
})
