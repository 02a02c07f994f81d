import { createRoot } from 'react-dom/client'

function App() {
  return (
    <main>
      <h1>Quire</h1>
      <p>Your documentation, synced to local files.</p>
    </main>
  )
}

createRoot(document.getElementById('root')!).render(<App />)
