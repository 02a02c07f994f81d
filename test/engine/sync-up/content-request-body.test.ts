import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ContentChange } from '../../../src/main/content'
import { contentRequestBody, FileChangedError, FILE_BYTES_PLACEHOLDER } from '../../../src/main/engine/outbox/file-references'
import type { ContentPayload } from '../../../src/main/engine/outbox/outbox-types'
import { scratchFolderPerTest } from './support/workspace'

/**
 * Issue 14: a content batch's request body is written straight into bytes, the referenced files' base64
 * among them, instead of JSON.stringify of changes carrying base64 strings. The body must be the JSON of
 * the changes with the bytes planned, whatever the names hold, and refuse a file changed since the plan.
 */

const scratch = scratchFolderPerTest('quire-body-')
const write = scratch.write

describe('the request body of a content batch', () => {
  it('is the JSON of the changes with each referenced file read as base64, names with quotes, unicode and placeholders-like text kept', async () => {
    const folder = scratch.make()
    // Sizes around base64's 3-byte groups, an empty file, bytes that are not UTF-8.
    const files = [
      write('.gitbook/assets/a quoted name.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00])),
      write('.gitbook/assets/é 漢字 (1).svg', Buffer.from('<svg>\u2028</svg>')),
      write('.gitbook/assets/empty.bin', Buffer.alloc(0)),
      write('.gitbook/assets/big.bin', Buffer.alloc(300_001, 7)),
    ]
    const changes: ContentChange[] = [
      { operation: 'insert_page', ref: 'p1', title: 'Says "@file:x" and \\ and \u2028', document: { markdown: '# A\n\n![](./quire-f1)\n' } } as ContentChange,
      {
        operation: 'insert_files',
        files: [
          { ref: 'quire-f1', name: 'a "quoted" name.png', base64: `${FILE_BYTES_PLACEHOLDER}${files[0].path}` },
          { ref: 'inline', name: 'inline.txt', contentType: 'text/plain', base64: Buffer.from('inline bytes').toString('base64') },
          { ref: 'quire-f2', name: 'é 漢字 (1).svg', base64: `${FILE_BYTES_PLACEHOLDER}${files[1].path}` },
        ],
      },
      { operation: 'insert_files', files: [{ name: 'empty.bin', base64: `${FILE_BYTES_PLACEHOLDER}${files[2].path}` }] },
      { operation: 'insert_files', files: [{ ref: 'quire-f4', name: 'big.bin', base64: `${FILE_BYTES_PLACEHOLDER}${files[3].path}` }] },
    ]
    const payload = { changes, entries: [], keys: [], defines: [], files, folder } as ContentPayload

    const body = await contentRequestBody(changes, payload)
    const bytesOf = (i: number) => fs.readFileSync(path.join(folder, ...files[i].path.split('/'))).toString('base64')
    const expected = changes.map((change) =>
      change.operation !== 'insert_files'
        ? change
        : { ...change, files: change.files.map((f) => ({ ...f, base64: f.base64!.startsWith(FILE_BYTES_PLACEHOLDER) ? bytesOf(files.findIndex((r) => f.base64 === `${FILE_BYTES_PLACEHOLDER}${r.path}`)) : f.base64 })) },
    )
    expect(JSON.parse(body.toString('utf8'))).toEqual({ changes: expected })
    // The same bytes JSON.stringify gives (key order aside, nothing added or lost).
    expect(body.byteLength).toBe(Buffer.byteLength(JSON.stringify({ changes: expected })))
  })

  it('refuses a file changed or gone since the plan, naming it, before any of the body is sent', async () => {
    const folder = scratch.make()
    const planned = write('.gitbook/assets/shot.png', Buffer.from('planned bytes'))
    const changes: ContentChange[] = [{ operation: 'insert_files', files: [{ ref: 'r', name: 'shot.png', base64: `${FILE_BYTES_PLACEHOLDER}${planned.path}` }] }]
    const payload = { changes, entries: [], keys: [], defines: [], files: [planned], folder } as ContentPayload

    write(planned.path, Buffer.from('edited bytes!'))
    await expect(contentRequestBody(changes, payload)).rejects.toThrow(FileChangedError)
    await expect(contentRequestBody(changes, payload)).rejects.toThrow(/shot\.png changed after this push was planned/)
    fs.rmSync(path.join(folder, '.gitbook/assets/shot.png'))
    await expect(contentRequestBody(changes, payload)).rejects.toThrow(/shot\.png is gone/)
  })
})
