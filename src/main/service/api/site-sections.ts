import type { Route } from '../http/context'

export const siteSectionRoutes: Route[] = []
