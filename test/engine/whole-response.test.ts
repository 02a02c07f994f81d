/**
 * The gateway reads every body in full once (a cut body is a transport failure it retries) and hands the
 * caller a response over those bytes: its readers give those very bytes, no copy, and read once like
 * any Response.
 */
import { describe, expect, it } from 'vitest'
import { readWhole } from '../../src/main/engine/gateway/whole-response'

const answer = (body: BodyInit | null, init: ResponseInit = {}) => new Response(body, { status: 200, headers: { 'content-type': 'application/json' }, ...init })

describe('readWhole', () => {
  it('reads json, text, bytes and a stream of the same body, with status, headers and url kept', async () => {
    const json = JSON.stringify({ pages: Array.from({ length: 50 }, (_, i) => ({ id: `p${i}`, markdown: `# Page ${i} é\n` })) })
    const source = answer(json, { status: 201, statusText: 'Created' })
    Object.defineProperty(source, 'url', { value: 'http://127.0.0.1:9/v1/spaces/x/content' })
    const whole = await readWhole(source)
    expect(whole).toBeInstanceOf(Response)
    expect([whole.status, whole.statusText, whole.ok, whole.url, whole.headers.get('content-type')]).toEqual([201, 'Created', true, 'http://127.0.0.1:9/v1/spaces/x/content', 'application/json'])
    expect(await whole.clone().json()).toEqual(JSON.parse(json))
    expect(await whole.clone().text()).toBe(json)
    expect(new TextDecoder().decode(await whole.clone().arrayBuffer())).toBe(json)
    expect(await new Response(whole.clone().body).text()).toBe(json)
    expect(whole.bodyUsed).toBe(false)
    await whole.text()
    expect(whole.bodyUsed).toBe(true)
  })

  it('hands out the bytes it read, once', async () => {
    const bytes = new Uint8Array(1 << 20).map((_, i) => i % 251)
    const whole = await readWhole(answer(bytes))
    const first = await whole.arrayBuffer()
    expect(new Uint8Array(first)).toEqual(bytes)
    await expect(whole.arrayBuffer()).rejects.toThrow(TypeError)
    await expect(whole.json()).rejects.toThrow(TypeError)
  })

  it('keeps statuses that have no body', async () => {
    const whole = await readWhole(new Response(null, { status: 204 }))
    expect(whole.status).toBe(204)
    expect(whole.body).toBeNull()
    expect(await whole.text()).toBe('')
  })
})
