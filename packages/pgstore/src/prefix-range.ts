const MAX_CODE_POINT = 0x10ffff
const FIRST_SURROGATE = 0xd800
const AFTER_SURROGATES = 0xe000

/**
 * The least string greater than every string starting with `prefix`, in code point order; none when
 * `prefix` is empty or only U+10FFFF characters (then `key >= prefix` alone selects exactly the keys
 * starting with it). With it, `key >= prefix AND key < upper` matches the prefix literally and
 * stays an index range scan, unlike LIKE, whose `%`, `_` and `\` would need escaping.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const chars = [...prefix]
  for (let i = chars.length - 1; i >= 0; i--) {
    const last = chars[i]!.codePointAt(0)!
    if (last === MAX_CODE_POINT) continue
    // Surrogate code points cannot appear in UTF-8 text, so the next storable one follows them.
    const next = last + 1 === FIRST_SURROGATE ? AFTER_SURROGATES : last + 1
    return chars.slice(0, i).join('') + String.fromCodePoint(next)
  }
  return undefined
}
