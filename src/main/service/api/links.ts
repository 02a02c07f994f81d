import type { Route } from '../http/context'

export const linkRoutes: Route[] = []
