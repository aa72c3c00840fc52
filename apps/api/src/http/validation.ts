import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify'
import { z } from 'zod'

/**
 * Fastify's validator for zod route schemas. Unlike the type provider's own compiler it writes each
 * issue's location as a real JSON Pointer (RFC 6901, `~` and `/` escaped) and reports every unknown
 * field at its own path.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const result = schema.safeParse(data)
    if (result.success) return { value: result.data }
    return { error: result.error.issues.flatMap(toValidationErrors) }
  }

/** An RFC 6901 JSON Pointer to `path`. */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path
    .map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('')
}

function toValidationErrors(issue: z.core.$ZodIssue): FastifySchemaValidationError[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({
      keyword: issue.code,
      instancePath: jsonPointer([...issue.path, key]),
      schemaPath: '',
      params: {},
      message: 'Unknown field',
    }))
  }
  return [
    {
      keyword: issue.code,
      instancePath: jsonPointer(issue.path),
      schemaPath: '',
      params: {},
      message: issue.message,
    },
  ]
}
