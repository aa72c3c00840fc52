import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { readFileSync } from 'node:fs'
import { RUN_EVENT_TYPES } from '@weave/db'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildApp } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { problemResponses } from '../src/http/problem-responses.js'
import { renderOpenApiDocument } from '../src/openapi-document.js'
import { SECRET, captureLog, testConfig } from './support.js'

interface Operation {
  operationId?: string
  summary?: string
  tags?: string[]
  security?: unknown[]
  responses?: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>
}
interface Document {
  openapi: string
  info: { title: string; version: string }
  servers: unknown[]
  security: unknown[]
  tags: { name: string }[]
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

const widgetRoutes: FastifyPluginAsyncZod<{ widgets: string[] }> = async (app, { widgets }) => {
  app.post(
    '/v1/widgets',
    {
      onRequest: app.requireScope('graphs:write'),
      schema: {
        operationId: 'createWidget',
        summary: 'Create a widget',
        tags: ['graphs'],
        body: z.strictObject({ name: z.string() }),
        response: { 201: z.object({ name: z.string() }), ...problemResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      widgets.push(request.body.name)
      return reply.code(201).send({ name: request.body.name })
    },
  )
}

function operations(document: Document): [string, string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => [path, method, operation] as [string, string, Operation]),
  )
}

async function documentOf(app: ReturnType<typeof buildApp>): Promise<Document> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' })
  expect(response.statusCode).toBe(200)
  return response.json<Document>()
}

describe('the OpenAPI document', () => {
  const app = buildApp({
    config: testConfig(),
    log: captureLog().log,
    services: { widgets: [] as string[] },
    routes: [widgetRoutes],
  })

  it('is OpenAPI 3.1 with a global bearer JWT security scheme', async () => {
    const document = await documentOf(app)
    expect(document.openapi).toBe('3.1.0')
    expect(document.info.title).toBe('Weave API')
    expect(document.servers.length).toBeGreaterThan(0)
    expect(document.components.securitySchemes.bearerAuth).toEqual(
      expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
    )
    expect(document.security).toEqual([{ bearerAuth: [] }])
  })

  it('gives every operation a unique operationId, a summary, a known tag and responses', async () => {
    const document = await documentOf(app)
    const tags = document.tags.map((tag) => tag.name)
    const ids = new Set<string>()
    const all = operations(document)
    expect(all.length).toBeGreaterThanOrEqual(5)
    for (const [path, method, operation] of all) {
      const where = `${method.toUpperCase()} ${path}`
      expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z]+$/)
      expect(ids.has(operation.operationId ?? ''), where).toBe(false)
      ids.add(operation.operationId ?? '')
      expect(operation.summary, where).toBeTruthy()
      expect(
        operation.tags?.every((tag) => tags.includes(tag)),
        where,
      ).toBe(true)
      expect(Object.keys(operation.responses ?? {}).length, where).toBeGreaterThan(0)
    }
  })

  it('documents the operations routes without authentication', async () => {
    const document = await documentOf(app)
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json']) {
      expect(document.paths[path]?.get?.security, path).toEqual([])
    }
  })

  it("documents a route plugin's problems as application/problem+json", async () => {
    const document = await documentOf(app)
    const create = document.paths['/v1/widgets']?.post
    expect(create?.operationId).toBe('createWidget')
    for (const status of ['400', '401', '403']) {
      expect(create?.responses?.[status]?.content?.['application/problem+json']?.schema).toEqual({
        $ref: '#/components/schemas/Problem',
      })
    }
    expect(document.components.schemas.Problem).toBeDefined()
  })

  it('serves Swagger UI at /docs', async () => {
    const response = await app.inject({ method: 'GET', url: '/docs/' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toContain('text/html')
  })

  it('renders the committed document identically each time, with sorted paths', async () => {
    const first = await renderOpenApiDocument()
    expect(await renderOpenApiDocument()).toBe(first)
    const paths = Object.keys((JSON.parse(first) as Document).paths)
    expect(paths).toEqual([...paths].sort())
    expect(first.endsWith('}\n')).toBe(true)
  })

  it('serves the route plugin with its services', async () => {
    const widgets: string[] = []
    const withWidgets = buildApp({
      config: testConfig(),
      log: captureLog().log,
      services: { widgets },
      routes: [widgetRoutes],
    })
    const token = await mintDevToken({
      secret: SECRET,
      tenant: 'acme',
      subject: 'alice',
      scopes: ['graphs:write'],
      audience: 'weave',
      expiresIn: 60,
    })
    const response = await withWidgets.inject({
      method: 'POST',
      url: '/v1/widgets',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'w1' },
    })
    expect(response.statusCode).toBe(201)
    expect(widgets).toEqual(['w1'])
  })
})

describe('the committed OpenAPI document', () => {
  const committed = JSON.parse(
    readFileSync(new URL('../../../openapi/openapi.json', import.meta.url), 'utf8'),
  ) as { components: { schemas: Record<string, any> } }
  const schemas = committed.components.schemas

  it('gives every run event type the schema of its data, from the run protocol', () => {
    const members: Array<{ $ref: string }> = schemas.RunEvent.anyOf
    const typed = members
      .map((member) => schemas[member.$ref.split('/').at(-1)!])
      .filter((schema) => schema.properties.type.const !== undefined)
    expect(typed.map((schema) => schema.properties.type.const)).toEqual(RUN_EVENT_TYPES)
    const completed = typed.find((schema) => schema.properties.type.const === 'step.completed')
    expect(completed.properties.data).toMatchObject({
      type: 'object',
      required: ['step', 'seq'],
    })
  })
})
