import { MessageChannel, type MessagePort } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { isRpcMessage, remoteObject, RpcError, RpcPeer, type MessageLink } from '../../src/main/shell/backend/rpc'

function portLink(port: MessagePort): MessageLink {
  return {
    send: (message) => port.postMessage(message),
    listen(listener) {
      port.on('message', listener)
      return () => port.off('message', listener)
    },
  }
}

const ports: MessagePort[] = []
function pair(): [RpcPeer, RpcPeer] {
  const { port1, port2 } = new MessageChannel()
  ports.push(port1, port2)
  return [new RpcPeer(portLink(port1)), new RpcPeer(portLink(port2))]
}

class KindError extends Error {
  readonly kind = 'auth'
}

interface Greeter {
  hello(name: string): Promise<string>
  fail(): Promise<void>
}

describe('RPC between the main process and the backend', () => {
  afterEach(() => {
    for (const port of ports.splice(0)) port.close()
  })

  it('calls a served object and returns its answer, structured data included', async () => {
    const [main, backend] = pair()
    backend.serve('greeter', { hello: async (name: string) => `hello ${name}`, fail: async () => undefined }, ['hello', 'fail'])
    const greeter = remoteObject<Greeter>(main, 'greeter', ['hello', 'fail'])
    expect(await greeter.hello('quire')).toBe('hello quire')
    await expect(Promise.all([greeter.hello('a'), greeter.hello('b')])).resolves.toEqual(['hello a', 'hello b'])
  })

  it('carries errors back with their message, name and kind', async () => {
    const [main, backend] = pair()
    backend.serve(
      'greeter',
      {
        hello: async () => '',
        fail: async () => {
          throw new KindError('the service refused the token')
        },
      },
      ['hello', 'fail'],
    )
    const error = await remoteObject<Greeter>(main, 'greeter', ['hello', 'fail'])
      .fail()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RpcError)
    expect(error).toMatchObject({ message: 'the service refused the token', kind: 'auth' })
  })

  it('refuses methods that were not listed, prototype methods included', async () => {
    const [main, backend] = pair()
    backend.serve('greeter', { hello: async () => 'hi', secret: async () => 'no' }, ['hello'])
    await expect(main.call('greeter', 'secret', [])).rejects.toThrow('no method greeter.secret')
    await expect(main.call('greeter', 'toString', [])).rejects.toThrow('no method greeter.toString')
    await expect(main.call('nobody', 'hello', [])).rejects.toThrow('no method nobody.hello')
  })

  it('delivers notices in order', async () => {
    const [main, backend] = pair()
    const seen: unknown[] = []
    const done = new Promise<void>((resolve) =>
      main.onNotice((topic, payload) => {
        seen.push([topic, payload])
        if (seen.length === 2) resolve()
      }),
    )
    backend.notify('event', { n: 1 })
    backend.notify('event', { n: 2 })
    await done
    expect(seen).toEqual([
      ['event', { n: 1 }],
      ['event', { n: 2 }],
    ])
  })

  it('fails calls still waiting when the other side goes away', async () => {
    const [main, backend] = pair()
    backend.serve('slow', { wait: () => new Promise(() => undefined) }, ['wait'])
    const waiting = main.call('slow', 'wait', [])
    await new Promise((resolve) => setTimeout(resolve, 10))
    main.close(new Error('the sync engine stopped (exit code 1)'))
    await expect(waiting).rejects.toThrow('exit code 1')
    await expect(main.call('slow', 'wait', [])).rejects.toThrow('exit code 1')
  })

  it('drops malformed messages', () => {
    expect(isRpcMessage({ rpc: 'call', id: 1, target: 't', method: 'm', args: [] })).toBe(true)
    for (const bad of [null, 'x', { rpc: 'call', id: '1', target: 't', method: 'm', args: [] }, { rpc: 'fail', id: 1, error: 'x' }, { rpc: 'other' }]) {
      expect(isRpcMessage(bad)).toBe(false)
    }
  })
})
