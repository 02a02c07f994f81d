import type { Route } from '../http/context'

export const inviteRoutes: Route[] = []
