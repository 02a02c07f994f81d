import type { Route } from '../http/context'

export const fontRoutes: Route[] = []
