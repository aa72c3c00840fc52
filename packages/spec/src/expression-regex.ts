import { AsyncLocalStorage } from 'node:async_hooks'
import type { RE2JS } from 're2js'
import { astNodes } from './expression-ast.js'
import { compileLinearRegExp, linearRegExpError } from './linear-regexp.js'

interface Deadline {
  at: number
  timeoutMs: number
}

// The deadline of the evaluation a regex runs in. JSONata checks its own timeout only between
// evaluation steps, and one $match or $replace call loops over every match inside a single
// step; the engine checks the deadline before each search so the loop stops too.
const evaluationDeadline = new AsyncLocalStorage<Deadline>()

/** Runs one evaluation under a deadline that regex searches inside it respect. */
export function withRegexDeadline<T>(timeoutMs: number, evaluate: () => Promise<T>): Promise<T> {
  return evaluationDeadline.run({ at: Date.now() + timeoutMs, timeoutMs }, evaluate)
}

/** Shaped like JSONata's own timeout (code D1012), so it is reported the same way. */
class RegexDeadlineError extends Error {
  override name = 'RegexDeadlineError'
  readonly code = 'D1012'
  constructor(readonly value: number) {
    super(`Evaluation timeout after ${value} milliseconds`)
  }
}

/**
 * JSONata's `RegexEngine`: regex literals (`/…/i`) compile to RE2 instead of a backtracking
 * RegExp. JSONata uses only `lastIndex` and `exec`, as on a RegExp with the `g` flag.
 * @throws SyntaxError from the constructor for a pattern RE2 cannot run.
 */
export class LinearRegexEngine {
  lastIndex = 0
  readonly #re: RE2JS

  constructor(literal: RegExp) {
    this.#re = compileLinearRegExp(literal.source, literal.flags)
  }

  exec(input: string): RegExpExecArray | null {
    const deadline = evaluationDeadline.getStore()
    if (deadline !== undefined && Date.now() > deadline.at) {
      throw new RegexDeadlineError(deadline.timeoutMs)
    }
    const matcher = this.#re.matcher(input)
    if (this.lastIndex > input.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0
      return null
    }
    const found: Array<string | undefined> = [matcher.group(0) ?? '']
    // RE2 reports a group that took no part in the match as null; RegExp as undefined.
    for (let g = 1; g <= matcher.groupCount(); g++) found.push(matcher.group(g) ?? undefined)
    this.lastIndex = matcher.end()
    return Object.assign(found, { index: matcher.start(), input }) as RegExpExecArray
  }
}

/**
 * Whether evaluating a parsed expression (`ast` from `jsonata(...).ast()`) can run a regex: it
 * has a regex literal, or it names `$eval`, which parses more expressions as it runs. Only such
 * an evaluation needs the deadline of {@link withRegexDeadline}: entering an AsyncLocalStorage
 * makes Node 20 run a hook at every promise the process creates from then on.
 */
export function mayRunRegex(ast: unknown): boolean {
  for (const { type, value } of astNodes(ast)) {
    if (type === 'regex' || (type === 'variable' && value === 'eval')) return true
  }
  return false
}

/**
 * Why a regex literal of a parsed expression cannot run on RE2 (`ast` from
 * `jsonata(...).ast()`), or undefined when every one can. Checked at parse time, so a spec with
 * such a pattern is refused at registration rather than failing its runs.
 */
export function regexLiteralError(ast: unknown): string | undefined {
  for (const { type, value } of astNodes(ast)) {
    if (type !== 'regex' || !(value instanceof RegExp)) continue
    const error = linearRegExpError(value.source, value.flags)
    // JSONata adds the g flag to every literal; the author did not write it.
    const written = `/${value.source}/${value.flags.replace('g', '')}`
    if (error !== undefined) return `regular expression ${written}: ${error}`
  }
  return undefined
}
