import { setTimeout as sleep } from 'node:timers/promises'
import { createMetricsRegistry } from '@weave/api'
import { createWorkerMetricsRegistry } from '@weave/worker'
import { describe, expect, it } from 'vitest'

type Registry = ReturnType<typeof createMetricsRegistry>

/** The value of a gauge of `registry`, read as /metrics reads them (every collect runs first). */
async function gauge(registry: Registry, name: string): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON()
  return metrics.find((m) => m.name === name)?.values[0]?.value
}

// The API's registry serves `weave api` and `weave start`; the worker's, `weave worker`.
describe.each([
  ['the API', createMetricsRegistry],
  ['a worker', createWorkerMetricsRegistry],
])('the process metrics of %s', (_process, createRegistry) => {
  it('sample the event loop often enough to show a 300 ms stall as its lag', async () => {
    // Sampled every 100 ms, not prom-client's 10 ms, which costs an idle process CPU.
    const registry = createRegistry()
    await sleep(300)
    const stallUntil = Date.now() + 300
    while (Date.now() < stallUntil) {
      // The loop is blocked: the next sample is late by about the stall.
    }
    await sleep(300)
    expect(await gauge(registry, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.2)
    expect(await gauge(registry, 'process_cpu_seconds_total')).toBeGreaterThan(0)
  })
})
