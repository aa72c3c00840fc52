import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { readFileSync } from 'node:fs'
import { RUN_EVENT_TYPES, TENANT_EVENT_TYPES } from '@weave/db'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildApp } from '../src/app.js'
import { mintDevToken } from '../src/auth/dev-token.js'
import { problemResponses } from '../src/http/problem-responses.js'
import { problemTypes, type ProblemName } from '../src/http/problems.js'
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

  // Each rendering builds the app and generates every schema: seconds on a loaded machine.
  it(
    'renders the committed document identically each time, with sorted paths',
    {
      timeout: 30_000,
    },
    async () => {
      const first = await renderOpenApiDocument()
      expect(await renderOpenApiDocument()).toBe(first)
      const paths = Object.keys((JSON.parse(first) as Document).paths)
      expect(paths).toEqual([...paths].sort())
      expect(first.endsWith('}\n')).toBe(true)
    },
  )

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

interface Response {
  description?: string
  headers?: Record<string, unknown>
  content?: Record<string, { schema?: any; examples?: Record<string, { value: any }> }>
}
interface FullOperation {
  operationId: string
  description?: string
  responses: Record<string, Response>
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> }
}

describe('the OpenAPI document as a product', async () => {
  const document = JSON.parse(await renderOpenApiDocument()) as {
    paths: Record<string, Record<string, FullOperation>>
    webhooks: Record<string, { post: FullOperation }>
    components: { schemas: Record<string, any>; headers: Record<string, unknown> }
  }
  const all = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ where: `${method} ${path}`, operation })),
  )
  const byId = (id: string) => all.find(({ operation }) => operation.operationId === id)!.operation
  const { schemas } = document.components

  it('describes every operation', () => {
    for (const { where, operation } of all) expect(operation.description, where).toBeTruthy()
  })

  it('gives every error status examples of its own problem types, each at a real path', () => {
    for (const { where, operation } of all) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue
        const examples = response.content?.['application/problem+json']?.examples
        expect(examples, `${where} ${status}`).toBeDefined()
        for (const [name, { value }] of Object.entries(examples!)) {
          const problem = problemTypes[name as ProblemName]
          expect(problem?.status, `${where} ${status} ${name}`).toBe(Number(status))
          expect(value).toMatchObject({
            type: `/problems/${name}`,
            title: problem.title,
            status: Number(status),
          })
          expect(value.detail, `${where} ${status} ${name}`).toBeTruthy()
          expect(value.instance, `${where} ${status}`).toMatch(/^\/[^{}]*$/)
        }
      }
    }
    // The complaint this answers: every error showed one 400 about /body/input/email.
    expect(JSON.stringify(document).includes('/body/input/email')).toBe(false)
  })

  it('documents the headers each answer carries', () => {
    for (const { where, operation } of all) {
      for (const [status, response] of Object.entries(operation.responses)) {
        const headers = response.headers ?? {}
        expect(headers['X-Request-Id'], `${where} ${status}`).toEqual({
          $ref: '#/components/headers/XRequestId',
        })
        if (status === '401') expect(headers['WWW-Authenticate'], where).toBeDefined()
        if (status === '429' || status === '503') {
          expect(headers['Retry-After'], `${where} ${status}`).toBeDefined()
        }
      }
    }
    const start = byId('startRun').responses
    expect(Object.keys(start['202']!.headers!)).toContain('Location')
    expect(Object.keys(start['200']!.headers!)).toEqual(
      expect.arrayContaining(['Location', 'Idempotent-Replayed']),
    )
    expect(Object.keys(byId('decideApproval').responses['200']!.headers!)).toContain(
      'Idempotent-Replayed',
    )
    for (const id of ['registerGraph', 'createWebhook', 'forkRun']) {
      const created = Object.entries(byId(id).responses).find(([status]) => status.startsWith('2'))
      expect(Object.keys(created![1].headers!), id).toContain('Location')
    }
  })

  it("shows a new run's 202 as a queued run", () => {
    const examples = byId('startRun').responses['202']!.content!['application/json']!.examples!
    // The second: a run waiting in its concurrency key's line, queued as well.
    expect(Object.values(examples).map(({ value }) => value.status)).toEqual(['queued', 'queued'])
  })

  it('types a graph spec with the JSON Schema generated from @weave/spec', () => {
    expect(schemas.RegisterGraphBody.properties.spec).toMatchObject({
      $ref: '#/components/schemas/GraphSpec',
    })
    expect(schemas.GraphSpec.properties.steps.additionalProperties).toEqual({
      $ref: '#/components/schemas/Step',
    })
    const kinds = schemas.Step.oneOf.map(
      ({ $ref }: { $ref: string }) => schemas[$ref.split('/').at(-1)!].properties.kind.const,
    )
    expect(kinds).toEqual(expect.arrayContaining(['set', 'approval', 'input', 'http', 'agent']))
  })

  it('describes each webhook delivery and the event stream', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual(
      [...RUN_EVENT_TYPES, ...TENANT_EVENT_TYPES].sort(),
    )
    for (const [type, { post }] of Object.entries(document.webhooks)) {
      const ref = post.requestBody!.content['application/json']!.schema.$ref!
      const payload = schemas[ref.split('/').at(-1)!]
      expect(payload.properties.type.const, type).toBe(type)
      // A run event names its run and number; a thread's or schedule's event its own id.
      const marker = /^(thread|schedule)\./.test(type) ? '"eventId"' : '"eventSeq"'
      expect(JSON.stringify(payload.properties.data), type).toContain(marker)
    }
    const stream = byId('listRunEvents').responses['200']!.content!['text/event-stream']!
    expect(stream.schema).toEqual({ $ref: '#/components/schemas/RunEventStreamMessage' })
  })

  it('has no component twice, none unused, and no anyOf that matches anything', () => {
    const names = Object.keys(schemas)
    for (const name of names) {
      if (name.endsWith('Input')) expect(names, name).not.toContain(name.slice(0, -5))
    }
    const { components, ...outside } = document
    const reached = new Set<string>()
    const queue: unknown[] = [outside]
    for (let item = queue.pop(); item !== undefined; item = queue.pop()) {
      for (const ref of JSON.stringify(item).match(/"\$ref":"[^"]+"/g) ?? []) {
        const name = ref.slice(8, -1)
        if (reached.has(name)) continue
        reached.add(name)
        const [, , group, key] = name.split('/')
        queue.push((components as Record<string, Record<string, unknown>>)[group!]![key!])
      }
    }
    for (const name of names) expect(reached, name).toContain(`#/components/schemas/${name}`)
    const anyOfs = JSON.stringify(components).match(/"anyOf":\[\{\}|,\{\}[,\]]/g)
    expect(anyOfs).toBeNull()
  })
})
