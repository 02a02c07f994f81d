import type { Route } from '../http/context'

export const changeRequestRoutes: Route[] = []
