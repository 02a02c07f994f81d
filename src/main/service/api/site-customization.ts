import type { Route } from '../http/context'

export const siteCustomizationRoutes: Route[] = []
