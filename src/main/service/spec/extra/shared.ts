import type { ParameterSpec } from '../types'

export const ref = (name: string) => ({ $ref: `gitbook#/components/schemas/${name}` })
export const pathParam = (name: string): ParameterSpec => ({ name, in: 'path', required: true, schema: { type: 'string' } })
export const pagedParams: ParameterSpec[] = [
  { name: 'page', in: 'query', schema: { type: 'string' } },
  { name: 'limit', in: 'query', schema: { type: 'number', minimum: 0, maximum: 1000 } },
]
export const listOf = (item: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['items'],
  properties: {
    next: { type: 'object', required: ['page'], properties: { page: { type: 'string' } } },
    count: { type: 'number' },
    items: { type: 'array', items: item },
    ...extra,
  },
})
