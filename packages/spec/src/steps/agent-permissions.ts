import type { State } from '@weave/kernel'
import { compileExpression, type CompiledExpression, type ExpressionLimits } from '../expression.js'
import { isTruthy } from '../json-value.js'
import type { AgentStepSpec } from '../step-schema.js'

type Rule = NonNullable<AgentStepSpec['permissions']>[number]

/** What a rule says of a tool call. */
export type Permission = 'allow' | 'ask' | 'deny'

/** The rule that decided a call (absent when the default decided). */
export interface PermissionVerdict {
  permission: Permission
  rule?: Rule
}

/** Decides the permission of a tool call from its name and (validated) arguments. */
export interface CompiledPermissions {
  /** @throws ExpressionError when a rule's `when` fails on these arguments. */
  decide(tool: string, readOnly: boolean, args: State, step: string): Promise<PermissionVerdict>
}

function globToRegExp(glob: string): RegExp {
  // Tool names and patterns hold only [A-Za-z0-9_-] and `*` (step-schema.ts), so `*` is the
  // one character with a meaning.
  return new RegExp(`^${glob.split('*').join('.*')}$`)
}

/**
 * The step's `permissions`, compiled once: the first rule whose `tool` matches the call's tool
 * and whose `when` (evaluated with the call's arguments as its input) is true wins; with none,
 * a tool marked `readOnly` is allowed and any other is asked about.
 */
export function compilePermissions(
  rules: ReadonlyArray<Rule>,
  limits: ExpressionLimits,
): CompiledPermissions {
  const compiled: Array<{ rule: Rule; tool: RegExp; when?: CompiledExpression }> = rules.map(
    (rule) => ({
      rule,
      tool: globToRegExp(rule.tool),
      ...(rule.when === undefined ? {} : { when: compileExpression(rule.when, limits) }),
    }),
  )
  return {
    async decide(tool, readOnly, args, step) {
      for (const { rule, tool: pattern, when } of compiled) {
        if (!pattern.test(tool)) continue
        if (when !== undefined && !isTruthy(await when.evaluate(args, step))) continue
        return { permission: rule.permission, rule }
      }
      return { permission: readOnly ? 'allow' : 'ask' }
    },
  }
}
