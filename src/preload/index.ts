import { contextBridge } from 'electron'

// The renderer gets a small domain API, never ipcRenderer itself. The contract grows with the desktop issue.
contextBridge.exposeInMainWorld('quire', { version: '0.1.0' })
