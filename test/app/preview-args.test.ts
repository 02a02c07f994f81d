import { describe, expect, it } from 'vitest'
import { ChannelArgsError, parseChannelArgs } from '../../src/main/app/channel-args'

/** Issue 28: the preview channel takes a page path inside the space folder, never one that leads out. */
describe('previewPage arguments', () => {
  it('takes a relative page path, and markdown (even empty) when given', () => {
    expect(parseChannelArgs('previewPage', [{ spaceId: 'sp_1', path: 'guide/install.md' }])).toEqual([{ spaceId: 'sp_1', path: 'guide/install.md' }])
    expect(parseChannelArgs('previewPage', [{ spaceId: 'sp_1', path: 'a.md', markdown: '' }])).toEqual([{ spaceId: 'sp_1', path: 'a.md', markdown: '' }])
  })

  it('refuses a path that leads out of the space folder, and unknown fields', () => {
    for (const path of ['../secret.md', 'guide/../../secret.md', '/etc/passwd', 'guide\\..\\x.md', 'a\0.md', ''])
      expect(() => parseChannelArgs('previewPage', [{ spaceId: 'sp_1', path }]), path).toThrow(ChannelArgsError)
    expect(() => parseChannelArgs('previewPage', [{ spaceId: 'sp_1', path: 'a.md', file: '/etc/passwd' }])).toThrow(/not a known field/)
    expect(() => parseChannelArgs('previewPage', [{ spaceId: 'sp_1', path: 'a.md', markdown: 'x'.repeat(1_000_001) }])).toThrow(/at most/)
  })
})
