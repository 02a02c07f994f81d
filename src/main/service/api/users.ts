import { ok, type Route } from '../http/context'
import type { UserRow } from '../store/users'
import { apiUrl } from './urls'

export function userJson(user: UserRow, origin: string) {
  return {
    object: 'user' as const,
    id: user.id,
    displayName: user.display_name,
    email: user.email,
    ...(user.photo_url ? { photoURL: user.photo_url } : {}),
    urls: { location: apiUrl(origin, `/users/${user.id}`) },
  }
}

export const userRoutes: Route[] = [{ operationId: 'getAuthenticatedUser', handler: (ctx) => ok(userJson(ctx.user, ctx.origin)) }]
