import type { Route } from '../http/context'

export const agentInstructionRoutes: Route[] = []
