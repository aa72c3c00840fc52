import { connect } from 'node:net'
import { CheckpointNotFoundError } from '@weave/kernel'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { LightMyRequestResponse } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildApp, type App } from '../src/app.js'
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnprocessableError,
} from '../src/http/app-errors.js'
import { problemResponses } from '../src/http/problem-responses.js'
import { Problem } from '../src/schemas/problem.js'
import { captureLog, testConfig } from './support.js'

const Thing = z.strictObject({
  name: z.string().min(1),
  input: z.strictObject({ email: z.email() }),
})

const appErrors: Record<string, () => Error> = {
  'bad-request': () => new BadRequestError('The cursor is not one this server issued.'),
  unauthorized: () => new UnauthorizedError('The token has expired.'),
  forbidden: () => new ForbiddenError('You started this run; someone else must approve it.'),
  'not-found': () => new NotFoundError('No run 7f3c.'),
  conflict: () => new ConflictError('The approval is already settled.'),
  unprocessable: () =>
    new UnprocessableError('The graph spec is invalid.', [
      { path: '/body/spec/steps/0/kind', message: 'Unknown step kind' },
    ]),
  unavailable: () =>
    new ServiceUnavailableError('The queue is unreachable.', { retryAfterSeconds: 3 }),
  kernel: () => new CheckpointNotFoundError('run-1'),
  postgres: () =>
    Object.assign(new Error('duplicate key value violates unique constraint "graphs_pkey"'), {
      code: '23505',
      detail: 'Key (tenant, name)=(acme, secret-name) already exists.',
    }),
  unknown: () => new Error('select * from secrets where token = $1 failed'),
}

const testRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    '/v1/things',
    {
      schema: {
        operationId: 'createThing',
        summary: 'Create a thing',
        tags: ['graphs'],
        querystring: z.object({ limit: z.coerce.number().int().min(1).max(200).optional() }),
        body: Thing,
        response: { 201: z.object({ name: z.string() }), ...problemResponses(400, 413, 415) },
      },
    },
    async (request, reply) => reply.code(201).send({ name: request.body.name }),
  )
  app.get(
    '/v1/things/:id',
    {
      schema: {
        operationId: 'getThing',
        summary: 'Get a thing',
        tags: ['graphs'],
        params: z.object({ id: z.uuid() }),
        response: { 200: z.object({ id: z.string() }), ...problemResponses(400, 404) },
      },
    },
    async (request) => ({ id: request.params.id }),
  )
  app.get(
    '/v1/errors/:kind',
    {
      schema: {
        operationId: 'throwError',
        summary: 'Throw an error',
        tags: ['graphs'],
        params: z.object({ kind: z.string() }),
        response: {
          200: z.object({}),
          ...problemResponses(400, 401, 403, 404, 409, 422, 500, 503),
        },
      },
    },
    async (request) => {
      throw (appErrors[request.params.kind] ?? (() => new Error('no such kind')))()
    },
  )
  app.get(
    '/v1/bad-response',
    {
      schema: {
        operationId: 'badResponse',
        summary: 'Answer with a body its schema refuses',
        tags: ['graphs'],
        response: { 200: z.object({ count: z.number() }) },
      },
    },
    async () => ({ count: 'many' }) as unknown as { count: number },
  )
}

const apps: App[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()))
})

function makeApp(env: Record<string, string> = {}) {
  const capture = captureLog()
  const app = buildApp({
    config: testConfig({ WEAVE_BODY_LIMIT_BYTES: '1024', ...env }),
    log: capture.log,
    routes: [testRoutes],
  })
  apps.push(app)
  return { app, lines: capture.lines }
}

function expectProblem(response: LightMyRequestResponse, status: number, type?: string) {
  expect(response.statusCode).toBe(status)
  expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8')
  expect(response.headers['x-request-id']).toEqual(expect.any(String))
  const body = Problem.parse(response.json())
  expect(body.status).toBe(status)
  if (type !== undefined) expect(body.type).toBe(type)
  expect(response.body).not.toMatch(/\bat .+:\d+:\d+/)
  return body
}

const validThing = { name: 'n', input: { email: 'a@example.com' } }

describe('problem details', () => {
  it('answers invalid body fields with 400 and a JSON Pointer per field', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things?limit=5',
      payload: { name: 'n', input: { email: 'nope' } },
    })
    const body = expectProblem(response, 400, '/problems/validation-failed')
    expect(body.instance).toBe('/v1/things')
    expect(body.errors).toEqual([{ path: '/body/input/email', message: expect.any(String) }])
  })

  it('names every unknown body field', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things',
      payload: { ...validThing, extra: 1, 'a/b': 2 },
    })
    const body = expectProblem(response, 400)
    expect(body.errors?.map((error) => error.path).sort()).toEqual(['/body/a~1b', '/body/extra'])
  })

  it('answers an invalid query with 400 at /query', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things?limit=0',
      payload: validThing,
    })
    expect(expectProblem(response, 400).errors?.[0]?.path).toBe('/query/limit')
  })

  it('answers a repeated query parameter with 400, not 500', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things?limit=1&limit=2',
      payload: validThing,
    })
    expect(expectProblem(response, 400).errors?.[0]?.path).toBe('/query/limit')
  })

  it('answers an invalid path parameter with 400 at /params', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: '/v1/things/not-a-uuid' })
    expect(expectProblem(response, 400).errors?.[0]?.path).toBe('/params/id')
  })

  it('answers a body over the limit with 413', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things',
      payload: { ...validThing, name: 'x'.repeat(2000) },
    })
    expectProblem(response, 413, '/problems/payload-too-large')
  })

  it('answers a body that is not JSON with 415', async () => {
    const { app } = makeApp()
    for (const contentType of [
      'text/plain',
      'application/xml',
      'application/x-www-form-urlencoded',
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/things',
        headers: { 'content-type': contentType },
        payload: 'name=n',
      })
      expectProblem(response, 415, '/problems/unsupported-media-type')
    }
  })

  it('answers malformed JSON with 400', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    })
    expectProblem(response, 400, '/problems/malformed-request')
  })

  it('answers a prototype-poisoning body with 400', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"n","__proto__":{"isAdmin":true}}',
    })
    expectProblem(response, 400, '/problems/malformed-request')
    expect(response.json().detail).toContain('"__proto__"')
  })

  it('answers an empty JSON body with 400', async () => {
    const { app } = makeApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/things',
      headers: { 'content-type': 'application/json' },
      payload: '',
    })
    expectProblem(response, 400, '/problems/malformed-request')
  })

  it('answers a missing body with 400', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'POST', url: '/v1/things' })
    expectProblem(response, 400, '/problems/validation-failed')
  })

  it('answers unknown routes and unknown methods with 404', async () => {
    const { app } = makeApp()
    const unknown = await app.inject({ method: 'GET', url: '/v1/nothing?x=1' })
    expect(expectProblem(unknown, 404, '/problems/not-found').instance).toBe('/v1/nothing')
    expectProblem(await app.inject({ method: 'DELETE', url: '/v1/things' }), 404)
  })

  it('answers a malformed percent-encoding with 400', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: '/v1/things/%E0%A4%A' })
    expectProblem(response, 400, '/problems/malformed-request')
    const elsewhere = await app.inject({ method: 'GET', url: '/%zz/%' })
    expect(elsewhere.statusCode).toBeLessThan(500)
    expectProblem(elsewhere, elsewhere.statusCode)
  })

  it('answers an over-long path parameter with 414', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: `/v1/things/${'a'.repeat(500)}` })
    expectProblem(response, 414, '/problems/uri-too-long')
  })

  it('answers over the rate limit with 429 and Retry-After', async () => {
    const { app } = makeApp({ WEAVE_RATE_LIMIT_PER_MINUTE: '2' })
    const request = {
      method: 'GET',
      url: '/v1/things/00000000-0000-4000-8000-000000000000',
    } as const
    expect((await app.inject(request)).statusCode).toBe(200)
    expect((await app.inject(request)).statusCode).toBe(200)
    const limited = await app.inject(request)
    expectProblem(limited, 429, '/problems/rate-limited')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
  })

  it('rate limits every route, unknown ones too, but not the probes', async () => {
    const { app } = makeApp({ WEAVE_RATE_LIMIT_PER_MINUTE: '1' })
    const request = { method: 'GET', url: '/v1/errors/conflict' } as const
    expect((await app.inject(request)).statusCode).toBe(409)
    expectProblem(await app.inject(request), 429, '/problems/rate-limited')
    expectProblem(await app.inject({ method: 'GET', url: '/v1/nothing' }), 429)
    for (let i = 0; i < 3; i++) {
      expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200)
    }
  })

  it.each([
    ['bad-request', 400, '/problems/validation-failed'],
    ['unauthorized', 401, '/problems/unauthorized'],
    ['forbidden', 403, '/problems/forbidden'],
    ['not-found', 404, '/problems/not-found'],
    ['conflict', 409, '/problems/conflict'],
    ['unprocessable', 422, '/problems/unprocessable'],
    ['unavailable', 503, '/problems/service-unavailable'],
  ])('renders a thrown %s error as %i', async (kind, status, type) => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: `/v1/errors/${kind}` })
    const body = expectProblem(response, status, type)
    expect(body.detail).toBe(appErrors[kind]?.().message)
  })

  it('lists every problem of a 422', async () => {
    const { app } = makeApp()
    const body = expectProblem(
      await app.inject({ method: 'GET', url: '/v1/errors/unprocessable' }),
      422,
    )
    expect(body.errors).toEqual([{ path: '/body/spec/steps/0/kind', message: 'Unknown step kind' }])
  })

  it('sends Retry-After with a 503', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: '/v1/errors/unavailable' })
    expect(response.headers['retry-after']).toBe('3')
  })

  it('maps a kernel error code through the code table', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: '/v1/errors/kernel' })
    expect(expectProblem(response, 404).detail).toBe('no checkpoint for run run-1')
  })

  it('maps a Postgres unique violation to 409 without the driver message', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: '/v1/errors/postgres' })
    expectProblem(response, 409, '/problems/conflict')
    expect(response.body).not.toContain('graphs_pkey')
    expect(response.body).not.toContain('secret-name')
  })

  it('answers an unexpected error with a generic 500, logged once with the error', async () => {
    const { app, lines } = makeApp()
    const response = await app.inject({
      method: 'GET',
      url: '/v1/errors/unknown',
      headers: { 'x-request-id': 'trace-500' },
    })
    const body = expectProblem(response, 500, '/problems/internal')
    expect(body.detail).toBe('An unexpected error occurred; it has been logged.')
    expect(response.body).not.toContain('select')
    expect(response.headers['x-request-id']).toBe('trace-500')
    const logged = lines()
      .map(
        (line) => JSON.parse(line) as { msg: string; requestId?: string; err?: { stack: string } },
      )
      .filter((line) => line.err)
    expect(logged).toHaveLength(1)
    expect(logged[0]?.msg).toBe('request failed')
    expect(logged[0]?.requestId).toBe('trace-500')
    expect(logged[0]?.err?.stack).toContain('select * from secrets')
  })

  it('answers a response that breaks its own schema with 500', async () => {
    const { app } = makeApp()
    expectProblem(await app.inject({ method: 'GET', url: '/v1/bad-response' }), 500)
  })
})

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id and logs it on every line of the request', async () => {
    const { app, lines } = makeApp()
    const response = await app.inject({
      method: 'GET',
      url: '/v1/nothing',
      headers: { 'x-request-id': 'abc.DEF_1:2-3' },
    })
    expect(response.headers['x-request-id']).toBe('abc.DEF_1:2-3')
    const requestLines = lines()
      .map((line) => JSON.parse(line) as { requestId?: string; msg: string })
      .filter((line) => line.msg === 'incoming request' || line.msg === 'request completed')
    expect(requestLines).toHaveLength(2)
    for (const line of requestLines) expect(line.requestId).toBe('abc.DEF_1:2-3')
  })

  it('replaces a malformed X-Request-Id with a generated one', async () => {
    const { app } = makeApp()
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '']) {
      const response = await app.inject({
        method: 'GET',
        url: '/healthz',
        headers: { 'x-request-id': bad },
      })
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    }
  })

  it('generates an id when none is sent and answers it on success', async () => {
    const { app } = makeApp()
    const response = await app.inject({ method: 'GET', url: '/healthz' })
    expect(response.statusCode).toBe(200)
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })
})

describe('errors before routing, over a real socket', () => {
  async function rawExchange(app: App, request: string): Promise<string> {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const address = app.server.address()
    if (address === null || typeof address === 'string') throw new Error('no port')
    return new Promise((resolve, reject) => {
      const socket = connect(address.port, '127.0.0.1', () => socket.end(request))
      let data = ''
      socket.on('data', (chunk) => (data += chunk.toString()))
      socket.on('end', () => resolve(data))
      socket.on('error', reject)
    })
  }

  it('answers a header block over the limit with a 431 problem', async () => {
    const { app } = makeApp()
    const answer = await rawExchange(
      app,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    )
    expect(answer).toMatch(/^HTTP\/1\.1 431 /)
    expect(answer).toContain('Content-Type: application/problem+json')
    expect(answer).toContain('"type":"/problems/header-too-large"')
  })

  it('answers a request line that is not HTTP with a 400 problem', async () => {
    const { app } = makeApp()
    const answer = await rawExchange(app, 'NOT HTTP AT ALL\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    expect(answer).toContain('"type":"/problems/malformed-request"')
  })
})
