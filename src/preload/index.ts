import { contextBridge, ipcRenderer } from 'electron'
import { createBridge } from './bridge'

// The renderer gets the contract's API as `window.quire`, never ipcRenderer itself. contextBridge copies
// the functions into the isolated page world; their arguments and results cross as structured clones.
contextBridge.exposeInMainWorld('quire', createBridge(ipcRenderer))
