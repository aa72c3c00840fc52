import { createServer, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import fp from 'fastify-plugin'
import type { Registry } from 'prom-client'
import { PROBLEM_CONTENT_TYPE } from './error-handler.js'
import { hasMetricsToken, metricsUnauthorized } from './metrics-access.js'
import { problemBody } from './render-problem.js'

/** Options of {@link metricsListenerPlugin}. */
export interface MetricsListenerOptions {
  registry: Registry
  /** Where to listen; without it nothing listens and `metricsAddress()` is undefined. */
  listen: { port: number; host: string } | undefined
  /** When set, scrapes must send `Authorization: Bearer <token>`. */
  token?: string | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Where the separate metrics listener listens once the app is ready; else undefined. */
    metricsAddress(): AddressInfo | undefined
  }
}

const HEADERS = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' }

/**
 * Serves `GET /metrics` on a port of its own (WEAVE_API_METRICS_PORT), e.g. one only the
 * monitoring network reaches. It listens once the app is ready (`listen()` makes it ready), so a
 * port in use fails the start, and closes with the app.
 */
export const metricsListenerPlugin = fp<MetricsListenerOptions>(
  async (app, options) => {
    let server: Server | undefined
    app.decorate('metricsAddress', () => server?.address() as AddressInfo | undefined)
    const { listen } = options
    if (!listen) return
    app.addHook('onReady', async () => {
      const listening = createServer((request, response) => {
        const path = (request.url ?? '/').split('?')[0]
        if (request.method !== 'GET' || path !== '/metrics') {
          const problem = problemBody('not-found', 'Only GET /metrics is served here.', path)
          return sendProblem(response, problem, {})
        }
        const header = request.headers.authorization
        if (options.token !== undefined && !hasMetricsToken(header, options.token)) {
          const error = metricsUnauthorized(header)
          const problem = problemBody(error.code, error.message, path)
          return sendProblem(response, problem, error.headers)
        }
        options.registry.metrics().then(
          (text) =>
            response
              .writeHead(200, { ...HEADERS, 'content-type': options.registry.contentType })
              .end(text),
          (err: unknown) => {
            app.log.error({ err }, 'metrics collection failed')
            const problem = problemBody('internal', 'Metrics collection failed.', path)
            sendProblem(response, problem, {})
          },
        )
      })
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject)
        listening.listen(listen.port, listen.host, () => {
          listening.off('error', reject)
          resolve()
        })
      })
      server = listening
    })
    app.addHook('onClose', async () => {
      const closing = server
      if (!closing) return
      server = undefined
      await new Promise<void>((resolve) => {
        closing.close(() => resolve())
        closing.closeAllConnections()
      })
    })
  },
  { name: 'weave-metrics-listener' },
)

function sendProblem(
  response: ServerResponse,
  problem: ReturnType<typeof problemBody>,
  headers: Record<string, string>,
): void {
  response
    .writeHead(problem.status, {
      ...HEADERS,
      ...headers,
      'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
    })
    .end(JSON.stringify(problem))
}
