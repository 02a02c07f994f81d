import { resolve } from 'node:path'
import { defineConfig, externalizeDepsPlugin } from 'electron-vite'

// The Electron shell's entry is src/main/shell; the engine and service under src/main are plain Node
// modules it bundles. better-sqlite3 stays external (native addon).
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    // Entries: the main process (index), the utility process the backend runs in (backend), the link workers.
    build: {
      rollupOptions: {
        // The link workers' script too: the embedded demo service parses large pages off its event loop.
        input: {
          index: resolve(__dirname, 'src/main/shell/index.ts'),
          backend: resolve(__dirname, 'src/main/shell/backend/backend-process.ts'),
          'link-worker': resolve(__dirname, 'src/main/service/link-workers/worker.ts'),
        },
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
