import { readFileSync } from 'node:fs'

/** A JSON Schema node as the OpenAPI document holds it. */
export type SchemaNode = Record<string, unknown>

/** One documented parameter of an operation. */
export interface ParameterDoc {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required: boolean
  schema: SchemaNode
}

/** One operation of the document: `paths[path][method]`. */
export interface OperationDoc {
  operationId: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** The OpenAPI path template, e.g. `/v1/runs/{id}`. */
  path: string
  parameters: ParameterDoc[]
  /** The `application/json` request body schema, when the operation takes a body. */
  body: SchemaNode | undefined
  bodyRequired: boolean
  /** Whether the operation declares a security requirement (a bearer token). */
  isSecured: boolean
  /** The documented response statuses, each with its media types (none for an empty body). */
  responses: Record<string, string[]>
}

/** The parts of an OpenAPI 3.1 document the fuzz test reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>
  components?: { schemas?: Record<string, SchemaNode> }
  security?: unknown[]
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const

/** Reads the committed OpenAPI document. */
export function readOpenApiDocument(url: URL): OpenApiDocument {
  return JSON.parse(readFileSync(url, 'utf8')) as OpenApiDocument
}

/** Every operation of the document, `paths` × methods, in document order. */
export function listOperations(document: OpenApiDocument): OperationDoc[] {
  const operations: OperationDoc[] = []
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = asArray(item.parameters)
    for (const method of METHODS) {
      const operation = item[method]
      if (!isRecord(operation)) continue
      const parameters = [...shared, ...asArray(operation.parameters)].map(toParameter)
      const body = jsonBody(operation.requestBody)
      const security = Array.isArray(operation.security) ? operation.security : document.security
      operations.push({
        operationId: typeof operation.operationId === 'string' ? operation.operationId : path,
        method: method.toUpperCase() as OperationDoc['method'],
        path,
        parameters,
        body: body?.schema,
        bodyRequired: body?.required ?? false,
        isSecured: Array.isArray(security) && security.some((s) => isRecord(s) && hasKeys(s)),
        responses: mediaTypes(operation.responses),
      })
    }
  }
  return operations
}

function toParameter(raw: unknown): ParameterDoc {
  const parameter = isRecord(raw) ? raw : {}
  return {
    name: String(parameter.name),
    in: parameter.in as ParameterDoc['in'],
    required: parameter.required === true,
    schema: isRecord(parameter.schema) ? parameter.schema : {},
  }
}

function jsonBody(raw: unknown): { schema: SchemaNode; required: boolean } | undefined {
  if (!isRecord(raw) || !isRecord(raw.content)) return undefined
  const media = raw.content['application/json']
  if (!isRecord(media)) return undefined
  return { schema: isRecord(media.schema) ? media.schema : {}, required: raw.required === true }
}

function mediaTypes(raw: unknown): Record<string, string[]> {
  if (!isRecord(raw)) return {}
  return Object.fromEntries(
    Object.entries(raw).map(([status, response]) => [
      status,
      isRecord(response) && isRecord(response.content) ? Object.keys(response.content) : [],
    ]),
  )
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}

function hasKeys(value: Record<string, unknown>): boolean {
  return Object.keys(value).length > 0
}

/** Whether `value` is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
