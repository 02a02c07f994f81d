import path from 'node:path'
import { app, BrowserWindow, shell } from 'electron'

// The desktop shell: a thin layer over the engine. It is grown by the desktop-app issue; what is here
// already follows Electron's security checklist.
function createWindow() {
  const window = new BrowserWindow({
    width: 1100,
    height: 760,
    title: 'Quire',
    webPreferences: {
      preload: path.join(__dirname, '../preload/index.cjs'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  })
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })
  window.webContents.on('will-navigate', (event) => event.preventDefault())
  if (process.env.ELECTRON_RENDERER_URL) void window.loadURL(process.env.ELECTRON_RENDERER_URL)
  else void window.loadFile(path.join(__dirname, '../renderer/index.html'))
}

if (!app.requestSingleInstanceLock()) app.quit()
else {
  void app.whenReady().then(createWindow)
  app.on('window-all-closed', () => app.quit())
}
