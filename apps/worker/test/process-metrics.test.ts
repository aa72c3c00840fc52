import { setTimeout as sleep } from 'node:timers/promises'
import type { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { EVENT_LOOP_SAMPLE_MS, processRegistry } from '../src/run-worker.js'

/** The value of a gauge of `registry`, read as /metrics reads them (every collect runs first). */
async function gauge(registry: Registry, name: string): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON()
  return metrics.find((m) => m.name === name)?.values[0]?.value
}

describe("the worker's process metrics", () => {
  it('sample the event loop every 100 ms, often enough to show a 300 ms stall as the lag', async () => {
    expect(EVENT_LOOP_SAMPLE_MS).toBe(100)
    const registry = processRegistry()
    await sleep(3 * EVENT_LOOP_SAMPLE_MS)
    const stallUntil = Date.now() + 300
    while (Date.now() < stallUntil) {
      // The loop is blocked: the next sample is late by about the stall.
    }
    await sleep(3 * EVENT_LOOP_SAMPLE_MS)
    expect(await gauge(registry, 'nodejs_eventloop_lag_max_seconds')).toBeGreaterThanOrEqual(0.2)
    expect(await gauge(registry, 'process_cpu_seconds_total')).toBeGreaterThan(0)
  })
})
