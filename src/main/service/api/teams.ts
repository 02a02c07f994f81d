import type { Route } from '../http/context'

export const teamRoutes: Route[] = []
