import type { FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ForbiddenError, UnauthorizedError } from '../http/app-errors.js'
import type { JwtVerifier } from './jwt-verifier.js'
import type { Principal, Scope } from './principal.js'

/** A route hook that authenticates the request (and checks a scope); use it as `onRequest`. */
export type AuthHook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The verified caller.
     * @throws {UnauthorizedError} when read on a route without an auth hook (fails closed)
     */
    readonly principal: Principal
    /**
     * The caller's tenant, `principal.tenant`.
     * @throws {UnauthorizedError} when read on a route without an auth hook (fails closed)
     */
    readonly tenant: string
  }
  interface FastifyInstance {
    /** A hook that requires a valid bearer token. */
    authenticate: AuthHook
    /** A hook that requires a valid bearer token holding `scope` (401, then 403). */
    requireScope(scope: Scope): AuthHook
    /**
     * The tenant of the request's bearer token when it verifies, else undefined. It does not
     * authenticate the request (`principal` stays unset until an auth hook runs); the
     * verification is shared with that hook, so a token is verified once per request.
     */
    verifiedTenant(request: FastifyRequest): Promise<string | undefined>
  }
}

/** Options of {@link authPlugin}. */
export interface AuthPluginOptions {
  verifier: JwtVerifier
}

/**
 * Decorates requests with `principal` and `tenant` (both throw 401 until an auth hook has run),
 * and the instance with `authenticate` and `requireScope`. Tokens are only read from
 * `Authorization: Bearer` and never logged.
 */
export const authPlugin = fp<AuthPluginOptions>(
  async (app, { verifier }) => {
    // Principals live beside their requests, so nothing but an auth hook can set one.
    const principals = new WeakMap<FastifyRequest, Principal>()
    const principalOf = (request: FastifyRequest): Principal => {
      const principal = principals.get(request)
      if (!principal) throw new UnauthorizedError('Authentication required.')
      return principal
    }
    app.decorateRequest('principal', {
      getter(this: FastifyRequest): Principal {
        return principalOf(this)
      },
    })
    app.decorateRequest('tenant', {
      getter(this: FastifyRequest): string {
        return principalOf(this).tenant
      },
    })

    const verifications = new WeakMap<FastifyRequest, Promise<Principal>>()
    const verify = (request: FastifyRequest): Promise<Principal> => {
      let verification = verifications.get(request)
      if (!verification) {
        verification = (async () => verifier.verify(bearerToken(request.headers.authorization)))()
        verifications.set(request, verification)
      }
      return verification
    }

    const authenticate = async (request: FastifyRequest): Promise<Principal> => {
      const known = principals.get(request)
      if (known) return known
      const principal = await verify(request)
      principals.set(request, principal)
      request.log.debug({ tenant: principal.tenant, subject: principal.subject }, 'authenticated')
      return principal
    }

    app.decorate('verifiedTenant', async (request: FastifyRequest) => {
      if (request.headers.authorization === undefined) return undefined
      try {
        return (await verify(request)).tenant
      } catch {
        return undefined
      }
    })
    app.decorate('authenticate', async (request: FastifyRequest) => {
      await authenticate(request)
    })
    app.decorate('requireScope', (scope: Scope): AuthHook => {
      return async (request) => {
        const principal = await authenticate(request)
        if (!principal.scopes.has(scope)) {
          throw new ForbiddenError(`This operation needs the scope "${scope}".`, {
            requiredScope: scope,
          })
        }
      }
    })
  },
  { name: 'weave-auth' },
)

const ONLY_BEARER = 'Weave accepts only bearer tokens: "Authorization: Bearer <token>".'

function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw new UnauthorizedError('A bearer token is required.', { challenge: 'missing-token' })
  }
  // RFC 6750 §3: another scheme (Basic, …) is an unsupported method, not a malformed bearer
  // request, so its challenge carries no error code.
  if (!/^Bearer(?:[ \t]|$)/i.test(header)) {
    throw new UnauthorizedError(ONLY_BEARER, { challenge: 'missing-token' })
  }
  const match = /^Bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(header)
  if (!match?.[1]) {
    throw new UnauthorizedError('The Authorization header must be "Bearer <token>".', {
      challenge: 'invalid-request',
    })
  }
  return match[1]
}
