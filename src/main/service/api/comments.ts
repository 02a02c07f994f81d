import type { Route } from '../http/context'

export const commentRoutes: Route[] = []
