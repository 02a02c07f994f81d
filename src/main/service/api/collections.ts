import type { Route } from '../http/context'

export const collectionRoutes: Route[] = []
