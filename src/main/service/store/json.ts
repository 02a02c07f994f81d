/** JSON columns: parsed with a clear error instead of a crash deep inside a handler. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback
  try {
    return JSON.parse(text) as T
  } catch {
    throw new Error('corrupt JSON column in the service database')
  }
}
