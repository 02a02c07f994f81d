import type { Route } from '../http/context'
import { userRoutes } from './users'

/** Every operation the local service implements, by family. */
export const allRoutes: Route[] = [...userRoutes]
