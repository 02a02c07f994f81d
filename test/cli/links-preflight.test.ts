import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { mirroredSeededSpace, quire, quireHomeForFile } from './support/cli-home'

/**
 * Issue 28, link pre-flight: a broken link in a local edit is listed by `quire links --local` with its
 * file and line (exit 1, for CI), and `quire watch` says the push adds it, and sends the push anyway.
 */

const t = serviceForFile()
const home = quireHomeForFile('quire-links-preflight-')
let folder: string

beforeAll(async () => {
  ;({ folder } = await mirroredSeededSpace(t, home))
})

describe('link pre-flight from the CLI', () => {
  it('lists a local edit\'s broken link with file:line, exits 1; watch warns and still sends', async () => {
    const clean = await quire('links', '--local')
    expect(clean.code, clean.out + clean.err).toBe(0)
    expect(clean.out).toMatch(/^Acme\/Docs: 0 broken links in the local files \(pre-flight\)$/m)

    fs.writeFileSync(path.join(folder, 'faq.md'), '# FAQ\n\nFirst read [the setup](guide/setpu.md).\n')
    const listed = await quire('links', '--local')
    expect(listed.code).toBe(1)
    expect(listed.out).toMatch(/^Acme\/Docs: 1 broken link in the local files \(pre-flight\)$/m)
    expect(listed.out).toMatch(/^ {2}faq\.md:3 {2}broken {2}guide\/setpu\.md {2}\(no page at guide\/setpu\.md\)$/m)
    const json = JSON.parse((await quire('links', '--local', '--json')).out) as { spaces: Array<{ local: Array<{ file: string; line: number; kind: string }> }> }
    expect(json.spaces[0].local).toEqual([expect.objectContaining({ file: 'faq.md', line: 3, kind: 'page' })])
    // The service's report of the revision has no broken link: --broken alone exits 0.
    expect((await quire('links', '--broken')).code).toBe(0)

    const watched = await quire('watch', '--once')
    expect(watched.code, watched.err).toBe(0)
    expect(watched.out).toMatch(/^Docs: this push adds 1 broken link \(sent all the same\):\n {2}faq\.md:3 {2}guide\/setpu\.md {2}\(no page at guide\/setpu\.md\)$/m)
    expect(watched.out).toMatch(/^Docs: sent to change request #\d+: faq\.md$/m)
  })
})
