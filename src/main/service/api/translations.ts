import type { Route } from '../http/context'

export const translationRoutes: Route[] = []
