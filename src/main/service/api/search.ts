import type { Route } from '../http/context'

export const searchRoutes: Route[] = []
