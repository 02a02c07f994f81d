export function ErrorNotice({ message }: { message: string | undefined }) {
  if (!message) return null
  return (
    <p className="notice notice-error" role="alert">
      {message}
    </p>
  )
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  )
}
