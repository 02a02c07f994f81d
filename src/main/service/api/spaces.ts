import type { Route } from '../http/context'

export const spaceRoutes: Route[] = []
