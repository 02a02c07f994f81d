import type { Route } from '../http/context'

export const spacePermissionRoutes: Route[] = []
