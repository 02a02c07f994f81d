import { newProcessToken, outcomeFromText } from '../openapi/processing'
import { OpenApiSpecsRepository, type OpenApiSpec } from '../store/openapi-specs'
import { OrganizationsRepository } from '../store/organizations'
import type { ServiceStore } from '../store/service-store'

export const DEMO_OPENAPI_SLUG = 'notes-api'

/** A small but complete OpenAPI 3.1 description, embedded so the demo needs no network. */
export const DEMO_OPENAPI_TEXT = `openapi: 3.1.0
info:
  title: Demo Notes API
  version: 1.0.0
  description: >-
    A small example API seeded into the Quire demo organization. It was stored from this text when the
    demo was created and processed at that moment; it is not fetched from anywhere.
servers:
  - url: https://notes.example.com/v1
paths:
  /notes:
    get:
      operationId: listNotes
      summary: List notes
      responses:
        '200':
          description: The notes, newest first.
          content:
            application/json:
              schema:
                type: array
                items:
                  $ref: '#/components/schemas/Note'
    post:
      operationId: createNote
      summary: Create a note
      requestBody:
        required: true
        content:
          application/json:
            schema:
              $ref: '#/components/schemas/NewNote'
      responses:
        '201':
          description: The note was created.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Note'
  /notes/{noteId}:
    get:
      operationId: getNote
      summary: Get a note
      parameters:
        - name: noteId
          in: path
          required: true
          schema:
            type: string
      responses:
        '200':
          description: The note.
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Note'
        '404':
          description: No such note.
components:
  schemas:
    NewNote:
      type: object
      required: [title]
      properties:
        title:
          type: string
          maxLength: 200
        body:
          type: string
    Note:
      allOf:
        - $ref: '#/components/schemas/NewNote'
        - type: object
          required: [id, createdAt]
          properties:
            id:
              type: string
            createdAt:
              type: string
              format: date-time
`

/**
 * Adds the demo OpenAPI specification to the demo organization: stored from the embedded text (so it has
 * no `sourceURL`) and processed at seed time, so it starts `complete` with one version.
 */
export function seedOpenApiDemo(store: ServiceStore, orgId: string, ownerId: string): OpenApiSpec {
  if (store.repo(OrganizationsRepository).member(orgId, ownerId)?.role !== 'admin') {
    throw new Error(`the demo owner ${ownerId} must administer organization ${orgId}`)
  }
  return store.transaction(() => {
    const specs = store.repo(OpenApiSpecsRepository)
    const token = newProcessToken()
    const spec = specs.create({ orgId, slug: DEMO_OPENAPI_SLUG, source: { text: DEMO_OPENAPI_TEXT }, processToken: token })
    specs.markInProgress(spec.id, token)
    const processed = specs.finishProcessing(spec.id, token, outcomeFromText(DEMO_OPENAPI_TEXT, null))
    if (!processed?.lastVersionId) throw new Error('the embedded demo OpenAPI description does not parse')
    return processed
  })
}
