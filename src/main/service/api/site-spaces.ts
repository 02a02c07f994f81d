import type { Route } from '../http/context'

export const siteSpaceRoutes: Route[] = []
