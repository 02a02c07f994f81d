import { useEffect, useState } from 'react'

export type ThemeChoice = 'system' | 'light' | 'dark'
const KEY = 'quire.theme'

function stored(): ThemeChoice {
  try {
    const value = localStorage.getItem(KEY)
    return value === 'light' || value === 'dark' ? value : 'system'
  } catch {
    return 'system'
  }
}

/** The theme follows the system (prefers-color-scheme) unless the user picked one; the choice is remembered. */
export function useTheme(): [ThemeChoice, (choice: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(stored)
  useEffect(() => {
    const root = document.documentElement
    if (choice === 'system') delete root.dataset.theme
    else root.dataset.theme = choice
    try {
      localStorage.setItem(KEY, choice)
    } catch {
      // Storage may be unavailable; the choice still holds for this window.
    }
  }, [choice])
  return [choice, setChoice]
}
