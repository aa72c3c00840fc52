import { z } from 'zod'

/** One invalid field of a request. */
export const FieldError = z
  .object({
    path: z.string().meta({
      description:
        'JSON Pointer into the request, starting with /body, /query, /params or /headers',
      examples: ['/body/input/amount'],
    }),
    message: z.string(),
  })
  .meta({ id: 'FieldError' })
/** One invalid field of a request. */
export type FieldError = z.infer<typeof FieldError>

/**
 * RFC 9457 problem details, the body of every error response. Some problems add members of
 * their own (RFC 9457 extensions: `checks` of not-ready, `forkedSeq` of a changed approval).
 */
export const Problem = z
  .looseObject({
    type: z.string().meta({
      description: 'URI reference naming the problem type: `/problems/<name>`',
      examples: ['/problems/run-not-found'],
    }),
    title: z.string().meta({ description: 'Short summary of the problem type' }),
    status: z.int().min(100).max(599).meta({ description: 'The HTTP status code' }),
    detail: z.string().meta({ description: 'What went wrong with this request' }),
    instance: z.string().optional().meta({ description: 'The path of the request' }),
    errors: z.array(FieldError).optional().meta({ description: 'Every invalid field' }),
  })
  .meta({
    id: 'Problem',
    description:
      'RFC 9457 problem details (application/problem+json); each response shows the types it ' +
      'may carry',
  })
/** RFC 9457 problem details, the body of every error response. */
export type Problem = z.infer<typeof Problem>
