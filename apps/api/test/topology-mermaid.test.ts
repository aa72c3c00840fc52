import { describe, expect, it } from 'vitest'
import { topologyToMermaid } from '../src/services/mermaid.js'

describe('topologyToMermaid', () => {
  it('escapes labels so no expression can break out of its quotes', () => {
    const text = topologyToMermaid(
      {
        nodes: [
          { id: 'end', kind: 'set' },
          { id: 'fan', kind: 'parallel', branches: [{ id: 'a', kind: 'http' }] },
        ],
        edges: [
          { from: 'end', to: 'fan', label: 'x = "a" and y < 2 # >\nz' },
          { from: 'fan', to: null },
        ],
      },
      'end',
    )
    expect(text.split('\n')).toEqual([
      'flowchart TD',
      '  start(("start"))',
      '  s0["end (set)"]',
      '  s1["fan (parallel: a: http)"]',
      '  done(("end"))',
      '  start --> s0',
      '  s0 -->|"x = #quot;a#quot; and y #lt; 2 #35; #gt; z"| s1',
      '  s1 --> done',
      '',
    ])
  })

  it('draws no end node for a graph that never ends', () => {
    const text = topologyToMermaid(
      { nodes: [{ id: 'loop', kind: 'set' }], edges: [{ from: 'loop', to: 'loop' }] },
      'loop',
    )
    expect(text).not.toContain('done')
    expect(text).toContain('  s0 --> s0')
  })
})
