import { resolve } from 'node:path'
import { defineConfig, externalizeDepsPlugin } from 'electron-vite'

// The Electron shell's entry is src/main/shell; the engine and service under src/main are plain Node
// modules it bundles. better-sqlite3 stays external (native addon).
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    // Two entries: the main process (index) and the utility process the backend runs in (backend).
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/main/shell/index.ts'), backend: resolve(__dirname, 'src/main/shell/backend/backend-process.ts') },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    // A sandboxed preload must be CommonJS.
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: { rollupOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } } },
    esbuild: { jsx: 'automatic' },
  },
})
