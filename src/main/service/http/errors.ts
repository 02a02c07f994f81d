/** An error the service answers with the published spec's error body `{error: {code, message}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new ApiError(400, message)
export const notFound = (message: string) => new ApiError(404, message)
export const forbidden = (message = 'You do not have permission to perform this operation') => new ApiError(403, message)
export const conflict = (message: string) => new ApiError(409, message)

export function errorBody(status: number, message: string) {
  return { error: { code: status, message } }
}
