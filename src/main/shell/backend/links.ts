import type { ParentPort, UtilityProcess } from 'electron'
import type { MessageLink, RpcMessage } from './rpc'

/** The main process's end: the UtilityProcess object it forked. */
export function utilityProcessLink(child: Pick<UtilityProcess, 'postMessage' | 'on' | 'off'>): MessageLink {
  return {
    send: (message: RpcMessage) => child.postMessage(message),
    listen(listener) {
      const onMessage = (message: unknown) => listener(message)
      child.on('message', onMessage)
      return () => {
        child.off('message', onMessage)
      }
    },
  }
}

/** The utility process's end: `process.parentPort`, whose messages arrive wrapped in a MessageEvent. */
export function parentPortLink(port: Pick<ParentPort, 'postMessage' | 'on' | 'off'>): MessageLink {
  return {
    send: (message: RpcMessage) => port.postMessage(message),
    listen(listener) {
      const onMessage = (event: { data: unknown }) => listener(event.data)
      port.on('message', onMessage)
      return () => {
        port.off('message', onMessage)
      }
    },
  }
}
