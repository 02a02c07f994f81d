import { QUIRE_CHANNELS, type QuireEvent } from '../../../shared/contract'
import type { BackendOptions, QuireBackend } from '../../app/backend'
import type { DesktopActions } from '../../app/desktop-actions'
import type { TokenVault } from '../../app/token-vault'
import { DESKTOP_METHODS, EVENT_TOPIC, TARGETS, VAULT_METHODS, type BackendControl, type BackendStartOptions } from './protocol'
import { remoteObject, RpcPeer, type MessageLink } from './rpc'

/** What the utility process runs: QuireBackend.open in the app, a stand-in in tests. */
export type OpenBackend = (options: BackendOptions) => Promise<QuireBackend>

/**
 * Serves a backend on `link`: `control.start` opens it with proxies for the vault and the desktop
 * actions (both live in the main process), then its API is served and its events sent as notices.
 */
export function serveBackend(link: MessageLink, open: OpenBackend): RpcPeer {
  const peer = new RpcPeer(link)
  let backend: QuireBackend | undefined
  let unsubscribe: (() => void) | undefined

  const control: BackendControl = {
    async start(options: BackendStartOptions) {
      if (backend) return
      const vault: TokenVault = { kind: options.vaultKind, ...remoteObject<Omit<TokenVault, 'kind'>>(peer, TARGETS.vault, VAULT_METHODS) }
      const desktop = remoteObject<DesktopActions>(peer, TARGETS.desktop, DESKTOP_METHODS)
      backend = await open({ dataDir: options.dataDir, vault, desktop, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) })
      unsubscribe = backend.onEvent((event: QuireEvent) => peer.notify(EVENT_TOPIC, event))
      peer.serve(TARGETS.api, backend, QUIRE_CHANNELS)
    },
    async stop() {
      unsubscribe?.()
      await backend?.close()
      backend = undefined
    },
  }
  peer.serve(TARGETS.control, control, ['start', 'stop'])
  return peer
}
