import type { Route } from '../http/context'

export const contentRoutes: Route[] = []
