import type { FastifyRequest } from 'fastify'
import type { AuditContext } from '../services/deps.js'

/** The request's id and client address, as audit events record them. */
export function auditContext(request: FastifyRequest): AuditContext {
  return { requestId: request.id, ip: request.ip }
}
