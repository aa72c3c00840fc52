import { expect } from 'vitest'
import type { ApiResponse } from './weave-processes.js'

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A matcher for an ISO 8601 UTC time with milliseconds, as every Weave time is rendered. */
export const isoTime = expect.stringMatching(ISO_UTC)

/** A matcher for a UUID. */
export const uuid = expect.stringMatching(
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
)

/** Asserts a JSON answer with this status; returns its body. */
export function expectJson<T = any>(res: ApiResponse, status: number): T {
  expect({ status: res.status, body: res.body }).toMatchObject({ status })
  expect(res.headers.get('content-type')).toMatch(/^application\/json\b/)
  expect(typeof res.body).toBe('object')
  return res.body as T
}

/**
 * Asserts an RFC 9457 problem with this status (docs/http-api.md); returns its body.
 * The status is checked together with the body so a failure shows what the API said.
 */
export function expectProblem(res: ApiResponse, status: number): ProblemBody {
  expect({ status: res.status, body: res.body }).toMatchObject({ status })
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json\b/)
  expect(res.body).toMatchObject({
    type: expect.any(String),
    title: expect.any(String),
    status,
    detail: expect.any(String),
  })
  return res.body as ProblemBody
}

/** An RFC 9457 problem body. */
export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  instance?: string
  errors?: Array<{ path: string; message: string }>
}

/** Asserts the `{ items, nextCursor }` shape of a list (docs/http-api.md); returns the items. */
export function expectPage<T = any>(res: ApiResponse): T[] {
  const body = expectJson<{ items: T[]; nextCursor: string | null }>(res, 200)
  expect(Array.isArray(body.items)).toBe(true)
  expect(body).toHaveProperty('nextCursor')
  return body.items
}
