/** One sample line of the Prometheus text format. */
export interface PromSample {
  name: string
  labels: Record<string, string>
  value: number
}

/** A metric family: its `# TYPE`, `# HELP` and samples. */
export interface PromFamily {
  name: string
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped'
  help: string | undefined
  samples: PromSample[]
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'] as const
const SUFFIXES: Record<PromFamily['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
}

/**
 * Parses the Prometheus text exposition format (0.0.4) strictly: every sample belongs to a family
 * whose `# TYPE` came first, names and label names are valid, label values are properly quoted
 * and escaped, values are floats, no sample repeats, and histograms have cumulative `le` buckets
 * ending in `+Inf` whose count equals `_count`.
 * @throws Error naming the line number and what is wrong with it
 */
export function parsePrometheusText(text: string): Map<string, PromFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the text must end with a newline')
  const families = new Map<string, PromFamily>()
  const seen = new Set<string>()
  let current: PromFamily | undefined
  const lines = text.split('\n').slice(0, -1)
  lines.forEach((line, index) => {
    const fail = (what: string): never => {
      throw new Error(`line ${index + 1}: ${what}: ${JSON.stringify(line)}`)
    }
    if (line.trim() === '') return
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line)
      if (!match) return
      const [, keyword, name, rest = ''] = match
      if (!NAME.test(name!)) fail('invalid metric name')
      let family = families.get(name!)
      if (keyword === 'TYPE') {
        if (!(TYPES as readonly string[]).includes(rest)) fail('unknown type')
        if (family?.samples.length) fail('TYPE after samples of its family')
        if (family && family.type !== 'untyped') fail('second TYPE')
        family ??= { name: name!, type: 'untyped', help: undefined, samples: [] }
        family.type = rest as PromFamily['type']
      } else {
        if (family?.help !== undefined) fail('second HELP')
        family ??= { name: name!, type: 'untyped', help: undefined, samples: [] }
        family.help = rest
      }
      families.set(name!, family)
      current = family
      return
    }
    const sample = parseSample(line, fail)
    const family = familyOf(sample.name, current)
    if (!family) fail('sample without a preceding TYPE of its family')
    const key = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`
    if (seen.has(key)) fail('duplicate sample')
    seen.add(key)
    family!.samples.push(sample)
  })
  for (const family of families.values()) {
    if (family.type === 'histogram') checkHistogram(family)
  }
  return families
}

// A family's lines are contiguous: a sample belongs to the family whose TYPE or HELP came last.
function familyOf(sampleName: string, current: PromFamily | undefined): PromFamily | undefined {
  if (!current) return undefined
  const isOfCurrent = SUFFIXES[current.type].some((s) => sampleName === `${current.name}${s}`)
  return isOfCurrent ? current : undefined
}

function parseSample(line: string, fail: (what: string) => never): PromSample {
  const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line)
  if (!match) fail('not a sample line')
  const [, name, , labelText, valueText] = match
  const labels: Record<string, string> = {}
  let rest = labelText ?? ''
  while (rest !== '') {
    const label = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,?)/.exec(rest)
    if (!label || !LABEL_NAME.test(label[1]!)) fail('malformed labels')
    if (label[1]! in labels) fail('duplicate label')
    labels[label[1]!] = label[2]!.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c))
    rest = rest.slice(label[0].length)
    if (rest !== '' && label[3] !== ',') fail('labels not separated by commas')
  }
  const value = parseValue(valueText!)
  if (value === undefined) fail('invalid value')
  return { name: name!, labels, value }
}

function parseValue(text: string): number | undefined {
  if (text === '+Inf') return Infinity
  if (text === '-Inf') return -Infinity
  if (text === 'NaN') return NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return undefined
  return Number(text)
}

function checkHistogram(family: PromFamily): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number }>()
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels
    const key = JSON.stringify(Object.entries(rest).sort())
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`)
      const bound = parseValue(le)
      if (bound === undefined) throw new Error(`${family.name}: le="${le}" is not a number`)
      entry.buckets.push([bound, sample.value])
    } else if (sample.name.endsWith('_count')) {
      entry.count = sample.value
    }
  }
  for (const [key, { buckets, count }] of series) {
    const sorted = [...buckets].sort((a, b) => a[0] - b[0])
    if (sorted.at(-1)?.[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`)
    sorted.forEach(([, value], i) => {
      if (i > 0 && value < sorted[i - 1]![1]) {
        throw new Error(`${family.name}${key}: buckets are not cumulative`)
      }
    })
    if (count !== sorted.at(-1)![1]) {
      throw new Error(`${family.name}${key}: _count differs from the +Inf bucket`)
    }
  }
}
