import type { Route } from '../http/context'

export const openApiSpecRoutes: Route[] = []
