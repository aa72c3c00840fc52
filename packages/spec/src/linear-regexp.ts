import { RE2JS } from 're2js'

// Tenant patterns (JSON Schema `pattern`, JSONata regex literals) run on RE2, whose matching
// time is linear in the input: a backtracking RegExp can spend minutes on one short string,
// e.g. /(a+)+$/ against "aaaa…!".

const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
}
// u: RE2 is Unicode-aware anyway; g and y: the caller keeps the position (lastIndex).
const NEUTRAL_FLAGS = new Set(['u', 'g', 'y'])

/**
 * The first construct of an ECMAScript pattern that RE2 cannot match in linear time. Found
 * here rather than left to RE2: it would report a lookbehind as a bad named group, and its JS
 * translation would quietly turn `\k<name>` into the literal text "k<name>".
 */
function nonLinearConstruct(source: string): string | undefined {
  let inClass = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i]
    if (c === '\\') {
      const next = source[i + 1] ?? ''
      if (!inClass && /[1-9]/.test(next)) return 'a backreference'
      if (!inClass && next === 'k' && source[i + 2] === '<') return 'a named backreference'
      i++
    } else if (inClass) {
      if (c === ']') inClass = false
    } else if (c === '[') {
      inClass = true
    } else if (c === '(' && source[i + 1] === '?') {
      const kind = source.slice(i + 2, i + 4)
      if (kind.startsWith('=') || kind.startsWith('!')) return 'a lookahead'
      if (kind === '<=' || kind === '<!') return 'a lookbehind'
    }
  }
  return undefined
}

function flagBits(flags: string): number {
  let bits = 0
  for (const flag of flags) {
    if (FLAG_BITS[flag] !== undefined) bits |= FLAG_BITS[flag]
    else if (!NEUTRAL_FLAGS.has(flag)) throw new SyntaxError(`the flag "${flag}" is not supported`)
  }
  return bits
}

/**
 * Compiles an ECMAScript pattern for RE2 (linear-time matching).
 * @throws SyntaxError naming what RE2 cannot run: backreferences, lookahead, lookbehind, an
 *   unsupported flag, or anything else RE2 does not parse.
 */
export function compileLinearRegExp(source: string, flags = ''): RE2JS {
  const construct = nonLinearConstruct(source)
  if (construct !== undefined) {
    throw new SyntaxError(`${construct} cannot be matched in linear time (RE2)`)
  }
  const bits = flagBits(flags)
  try {
    return RE2JS.compile(RE2JS.translateRegExp(source), bits)
  } catch (err) {
    throw new SyntaxError(`RE2 cannot compile it: ${(err as Error).message}`, { cause: err })
  }
}

/** Why `source` cannot run on RE2, or undefined when it can. */
export function linearRegExpError(source: string, flags = ''): string | undefined {
  try {
    compileLinearRegExp(source, flags)
    return undefined
  } catch (err) {
    return (err as Error).message
  }
}
