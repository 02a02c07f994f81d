import type { Route } from '../http/context'

export const ssoRoutes: Route[] = []
