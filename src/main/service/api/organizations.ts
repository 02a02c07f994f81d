import type { Route } from '../http/context'

export const organizationRoutes: Route[] = []
