import { existsSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Delta, Json, State } from '@weave/kernel'
import { HandlerConflictError, HandlerModuleError } from './errors.js'
import { HANDLER_NAME_PATTERN } from './schema-primitives.js'

/** What a handler gets besides the state. */
export interface HandlerContext {
  /** The step's `config`, as written in the spec. */
  config: Json | undefined
  runId: string
  step: string
  seq: number
  /** Aborted when the run is cancelled or a sibling parallel branch fails. */
  signal: AbortSignal
}

/** A handler: state (without `__` keys) in, delta out. */
export type HandlerFn = (state: Readonly<State>, ctx: HandlerContext) => Delta | Promise<Delta>

// Symbol.for, so a definition made by another copy of this package is still recognised.
const HANDLER_BRAND: unique symbol = Symbol.for('weave.spec.handler-definition') as never

/** A named handler, as created by defineHandler; modules export these. */
export interface HandlerDefinition {
  readonly name: string
  readonly fn: HandlerFn
  readonly [HANDLER_BRAND]: true
}

/**
 * Names a handler function so a worker can register it; export the result from a module
 * listed in the worker's handler modules.
 * @throws TypeError when the name does not match HANDLER_NAME_PATTERN or fn is not a function.
 */
export function defineHandler(name: string, fn: HandlerFn): HandlerDefinition {
  if (!HANDLER_NAME_PATTERN.test(name)) {
    throw new TypeError(`handler name "${name}" must match ${HANDLER_NAME_PATTERN.source}`)
  }
  if (typeof fn !== 'function') throw new TypeError(`handler "${name}" needs a function`)
  return Object.freeze({ name, fn, [HANDLER_BRAND]: true as const })
}

/** Whether `value` was created by defineHandler. */
export function isHandlerDefinition(value: unknown): value is HandlerDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<PropertyKey, unknown>)[HANDLER_BRAND] === true
  )
}

/** The handlers a worker can call, by name. */
export interface HandlerRegistry {
  /**
   * Adds a handler; registering the same definition again is a no-op.
   * @throws HandlerConflictError when another function already has that name.
   */
  register(definition: HandlerDefinition): HandlerRegistry
  get(name: string): HandlerFn | undefined
  names(): string[]
}

/**
 * A registry, optionally seeded with definitions.
 * @throws HandlerConflictError when two definitions share a name.
 */
export function createHandlerRegistry(
  definitions: Iterable<HandlerDefinition> = [],
): HandlerRegistry {
  const byName = new Map<string, HandlerFn>()
  const registry: HandlerRegistry = {
    register(definition) {
      const existing = byName.get(definition.name)
      if (existing !== undefined && existing !== definition.fn) {
        throw new HandlerConflictError(definition.name)
      }
      byName.set(definition.name, definition.fn)
      return registry
    },
    get: (name) => byName.get(name),
    names: () => [...byName.keys()].sort(),
  }
  for (const d of definitions) registry.register(d)
  return registry
}

// A specifier naming a file that exists (`examples/handlers.ts`, `./h.js`, `/abs/h.js`) is a path
// relative to baseDir; anything else is a package name for Node to resolve.
function moduleUrl(specifier: string, baseDir: string): string {
  if (specifier.startsWith('file:')) return specifier
  const path = resolve(baseDir, specifier)
  if (isAbsolute(specifier) || specifier.startsWith('.') || existsSync(path)) {
    return pathToFileURL(path).href
  }
  return specifier
}

function definitionsIn(mod: Record<string, unknown>): HandlerDefinition[] {
  return Object.values(mod).flatMap((v) =>
    Array.isArray(v) ? v.filter(isHandlerDefinition) : isHandlerDefinition(v) ? [v] : [],
  )
}

/**
 * Imports each module (a file path, relative to `baseDir` (default: the working directory), a `file:` URL, or a package name) and
 * registers every HandlerDefinition it exports, named or default, alone or in an array.
 * Resolves with the names registered, sorted.
 * @throws HandlerModuleError when a module fails to import or exports no handler.
 * @throws HandlerConflictError when two modules define one name with different functions.
 */
export async function loadHandlerModules(
  registry: HandlerRegistry,
  specifiers: ReadonlyArray<string>,
  options: { baseDir?: string } = {},
): Promise<string[]> {
  const names = new Set<string>()
  for (const specifier of specifiers) {
    let mod: Record<string, unknown>
    try {
      mod = (await import(moduleUrl(specifier, options.baseDir ?? process.cwd()))) as Record<
        string,
        unknown
      >
    } catch (err) {
      throw new HandlerModuleError(specifier, `cannot import: ${(err as Error).message}`, {
        cause: err,
      })
    }
    const definitions = definitionsIn(mod)
    if (definitions.length === 0) {
      throw new HandlerModuleError(specifier, 'exports no handler made with defineHandler')
    }
    for (const d of definitions) {
      registry.register(d)
      names.add(d.name)
    }
  }
  return [...names].sort()
}
