import type { State } from './json.js'
import type { StepContext } from './context.js'

/** Chooses the next step after a step; `END` (the empty string) ends the run. */
export type Router = (state: Readonly<State>, ctx: StepContext) => string | Promise<string>

/** A labelled edge of the topology; `to: ""` is END. */
export interface Edge {
  to: string
  label?: string
}

/** The name that ends a run when a router returns it. */
export const END = ''

/** The edges of routers built by this module, for validate() and topology(). */
const builtInEdges = new WeakMap<Router, Edge[]>()

/** The statically known edges of a built-in router, or undefined for a custom (dynamic) one. */
export function routerEdges(router: Router): Edge[] | undefined {
  return builtInEdges.get(router)
}

function tag(router: Router, edges: Edge[]): Router {
  builtInEdges.set(router, edges)
  return router
}

/** Always goes to `next`. */
export function always(next: string): Router {
  return tag(() => next, [{ to: next }])
}

/** Ends the run. */
export function end(): Router {
  return tag(() => END, [{ to: END }])
}

function pick(value: string | undefined, routes: Record<string, string>, fallback: string): string {
  return value !== undefined && Object.hasOwn(routes, value) ? routes[value]! : fallback
}

function routeEdges(routes: Record<string, string>, fallback: string): Edge[] {
  return [
    ...Object.keys(routes).map((label) => ({ to: routes[label]!, label })),
    { to: fallback, label: 'default' },
  ]
}

/**
 * Routes on `state[key]`: a string as is, a number or boolean as `String(v)`, matched against
 * the own keys of `routes`; anything else, or no match, goes to `fallback`.
 */
export function branch(key: string, routes: Record<string, string>, fallback: string): Router {
  const table = { ...routes }
  return tag(
    (state) => {
      const v = state[key]
      const value =
        typeof v === 'string'
          ? v
          : typeof v === 'number' || typeof v === 'boolean'
            ? String(v)
            : undefined
      return pick(value, table, fallback)
    },
    routeEdges(table, fallback),
  )
}

/** Routes on `extract(state)` matched against the own keys of `routes`, else `fallback`. */
export function branchFunc(
  extract: (s: Readonly<State>) => string,
  routes: Record<string, string>,
  fallback: string,
): Router {
  const table = { ...routes }
  return tag((state) => pick(extract(state), table, fallback), routeEdges(table, fallback))
}

/** Goes to `ifTrue` when `pred(state)` holds, else `ifFalse`. */
export function condition(
  pred: (s: Readonly<State>) => boolean,
  ifTrue: string,
  ifFalse: string,
): Router {
  return tag(
    (state) => (pred(state) ? ifTrue : ifFalse),
    [
      { to: ifTrue, label: 'true' },
      { to: ifFalse, label: 'false' },
    ],
  )
}
