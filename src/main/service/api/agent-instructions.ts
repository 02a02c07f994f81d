import { ok, type Route } from '../http/context'
import { AgentInstructionsRepository, type AgentInstructions, type JsonDocument } from '../store/agent-instructions'
import { OrganizationsRepository, type Organization } from '../store/organizations'
import type { ServiceStore } from '../store/service-store'
import { orgForAdmin, orgForMember } from './serializers/org-admin-access'
import { apiUrl } from './urls'

/**
 * Until an admin writes instructions, an organization has empty ones, dated from the organization's
 * creation and attributed to its first administrator (who created it).
 */
function initialInstructions(store: ServiceStore, org: Organization): AgentInstructions {
  const members = store.repo(OrganizationsRepository).members(org.id)
  const creator = members.find((m) => m.role === 'admin') ?? members[0]
  return {
    orgId: org.id,
    instructions: { object: 'document', data: {}, nodes: [] },
    updatedAt: org.createdAt,
    updatedBy: creator?.userId ?? '',
  }
}

function instructionsJson(record: AgentInstructions, origin: string) {
  return {
    object: 'agent-instructions' as const,
    instructions: record.instructions,
    updatedAt: record.updatedAt,
    updatedBy: record.updatedBy,
    urls: { location: apiUrl(origin, `/orgs/${record.orgId}/agent-instructions`) },
  }
}

const getInstructions: Route = {
  operationId: 'getOrganizationAgentInstructions',
  handler: (ctx) => {
    const { org } = orgForMember(ctx)
    const record = ctx.store.repo(AgentInstructionsRepository).get(org.id) ?? initialInstructions(ctx.store, org)
    return ok(instructionsJson(record, ctx.origin))
  },
}

const putInstructions: Route = {
  operationId: 'updateOrganizationAgentInstructions',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const { instructions } = ctx.body as { instructions: JsonDocument }
    const record = ctx.store.repo(AgentInstructionsRepository).put(org.id, instructions, ctx.user.id)
    return ok(instructionsJson(record, ctx.origin))
  },
}

export const agentInstructionRoutes: Route[] = [getInstructions, putInstructions]
