import type { Route } from '../http/context'

export const siteRoutes: Route[] = []
