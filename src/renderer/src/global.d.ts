import type { QuireBridge } from '../../shared/contract'

declare global {
  interface Window {
    /** Exposed by the Electron preload, or installed by the HTTP bridge when served by `quire serve`. */
    quire?: QuireBridge
  }
}

export {}
