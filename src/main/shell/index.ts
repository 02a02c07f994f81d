import { runDesktopApp } from './desktop-app'

// The Electron main process's entry (out/main/index.js). electron-vite gives this ESM bundle a
// `__dirname` (out/main), from which the preload, renderer and backend entry are found.
runDesktopApp(__dirname)
