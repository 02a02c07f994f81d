import { createContext, useContext } from 'react'
import type { QuireBridge } from '../../shared/contract'
import { createHttpBridge } from './http-bridge'

/** The preload's bridge inside Electron; the HTTP one in a browser. Screens only see QuireBridge. */
export function resolveBridge(): QuireBridge {
  if (!window.quire) window.quire = createHttpBridge()
  return window.quire
}

export const BridgeContext = createContext<QuireBridge | null>(null)

export function useBridge(): QuireBridge {
  const bridge = useContext(BridgeContext)
  if (!bridge) throw new Error('useBridge outside BridgeContext')
  return bridge
}
