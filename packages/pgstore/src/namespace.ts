/**
 * The stored `ns` column of a store's namespace: `<code points in prefix>:<prefix><ns>`.
 * Length-prefixing makes the encoding injective, so two stores with different prefixes (the empty
 * prefix included) never address the same row: prefix "a" + ns "b:c" is `1:ab:c`, prefix "a:b" +
 * ns "c" is `3:a:bc` (pinned by pg-store.int.test.ts, "prefix isolation"). The count is in code
 * points, as Postgres `char_length` counts them, so the column can be decoded in SQL too.
 */
export function namespaceEncoder(prefix: string): (ns: string) => string {
  const head = `${[...prefix].length}:${prefix}`
  return (ns) => head + ns
}
