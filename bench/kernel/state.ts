/** The benchmark's workload: a ~2 KB state and five steps, each adding one small field. */

/** A JSON value, as every contender's state holds only JSON. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue }

/** The state flowing through the five steps. */
export type BenchState = Record<string, JsonValue>

/** A step: reads the state, resolves with the one field it adds. */
export type BenchStep = (state: Readonly<BenchState>) => Promise<BenchState>

/** The names of the five steps, in order. */
export const STEP_NAMES = ['step1', 'step2', 'step3', 'step4', 'step5'] as const

/** The field each step adds (LangGraph refuses a node named like a state key). */
export const FIELD_NAMES = ['result1', 'result2', 'result3', 'result4', 'result5'] as const

const PARAGRAPH =
  'Quarterly report for the northern region: revenue grew in every product line, ' +
  'support tickets fell after the onboarding rework, and two renewals are waiting on legal. '

/** A fresh ~2 KB state (about 2,000 bytes of JSON), the same every call. */
export function initialState(): BenchState {
  return {
    request: {
      id: 'req-000417',
      tenant: 'acme',
      user: 'ada@example.com',
      locale: 'en-GB',
      priority: 3,
      tags: ['finance', 'quarterly', 'review', 'north'],
    },
    document: PARAGRAPH.repeat(9),
    messages: [
      { role: 'system', content: 'You review reports and flag anything a manager should see.' },
      { role: 'user', content: 'Summarise the attached report and list the open risks.' },
      { role: 'assistant', content: 'Revenue is up across the board; two renewals are pending.' },
      { role: 'user', content: 'Which renewals, and what is blocking them?' },
    ],
  }
}

function makeStep(field: string, index: number): BenchStep {
  return async () => ({ [field]: { done: true, index, note: `step ${index} finished` } })
}

/** The five async steps, shared by every contender. */
export const STEPS: readonly BenchStep[] = FIELD_NAMES.map((field, i) => makeStep(field, i + 1))

/**
 * Throws unless `state` went through all five steps on top of the initial state: every contender's
 * result is checked once before it is measured, so a broken contender cannot look fast.
 * @throws Error naming the contender and the missing field
 */
export function assertFinished(contender: string, state: unknown): void {
  const s = state as Record<string, unknown> | undefined
  for (const key of ['document', ...FIELD_NAMES]) {
    if (s?.[key] === undefined) throw new Error(`${contender}: final state lacks "${key}"`)
  }
}
