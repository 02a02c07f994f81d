import { createRoot } from 'react-dom/client'
import { App } from './App'
import { BridgeContext, resolveBridge } from './bridge'
import './styles.css'

createRoot(document.getElementById('root')!).render(
  <BridgeContext.Provider value={resolveBridge()}>
    <App />
  </BridgeContext.Provider>,
)
