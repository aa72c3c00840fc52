import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendJson, startLocalServer, type LocalServer } from './support/local-server.js'
import { runOneStep } from './support/one-step.js'

let server: LocalServer
let failures = 0

// A fake OpenAI-compatible endpoint: echoes the prompt, as JSON when asked.
beforeAll(async () => {
  server = await startLocalServer((req, res) => {
    if (req.headers.authorization !== 'Bearer sk-test') {
      return sendJson(res, 401, { error: { message: 'bad key' } })
    }
    if (failures > 0) {
      failures--
      return sendJson(res, 503, { error: { message: 'busy' } })
    }
    const body = JSON.parse(req.body) as {
      model: string
      messages: Array<{ role: string; content: string }>
      response_format?: { type: string }
    }
    const prompt = body.messages.at(-1)!.content
    const content =
      body.response_format?.type === 'json_object'
        ? JSON.stringify({ echo: prompt, model: body.model })
        : `echo: ${prompt}`
    sendJson(res, 200, {
      choices: [{ index: 0, message: { role: 'assistant', content } }],
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    })
  })
})
afterAll(() => server.close())

const llm = () => ({ baseUrl: `${server.origin}/v1/`, apiKey: 'sk-test', backoffMs: 1 })

describe('llm step', () => {
  it('sends system and user messages and saves { content, usage }', async () => {
    const r = await runOneStep(
      { kind: 'llm', model: 'gpt-test', system: 'You help {{ who }}.', prompt: 'Hi {{ who }}' },
      { llm: llm() },
      { who: 'Ada' },
    )
    expect(r.state.step).toEqual({
      content: 'echo: Hi Ada',
      usage: { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 },
    })
    const sent = JSON.parse(server.received.at(-1)!.body) as Record<string, unknown>
    expect(server.received.at(-1)!.url).toBe('/v1/chat/completions')
    expect(sent).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You help Ada.' },
        { role: 'user', content: 'Hi Ada' },
      ],
    })
  })

  it('asks for a JSON object and parses it when json is set', async () => {
    const r = await runOneStep(
      { kind: 'llm', model: 'm', prompt: 'classify', json: true, saveAs: 'verdict' },
      { llm: llm() },
    )
    expect(r.state.verdict).toMatchObject({ content: { echo: 'classify', model: 'm' } })
    const sent = JSON.parse(server.received.at(-1)!.body) as Record<string, unknown>
    expect(sent.response_format).toEqual({ type: 'json_object' })
  })

  it('retries a 503 and then succeeds', async () => {
    failures = 2
    const r = await runOneStep({ kind: 'llm', model: 'm', prompt: 'again' }, { llm: llm() })
    expect(r.stopReason).toBe('completed')
    expect(failures).toBe(0)
  })

  it('fails with the endpoint’s error message on a 4xx, without retrying', async () => {
    const before = server.received.length
    const r = await runOneStep(
      { kind: 'llm', model: 'm', prompt: 'x' },
      { llm: { ...llm(), apiKey: 'wrong' } },
    )
    expect(r.error).toMatchObject({ name: 'LlmStepError', code: 'llm-step' })
    expect(r.state.__error).toBe('step "step": the endpoint answered 401: bad key')
    expect(server.received.length).toBe(before + 1)
  })

  it('fails clearly when no endpoint is configured', async () => {
    const r = await runOneStep({ kind: 'llm', model: 'm', prompt: 'x' })
    expect(r.state.__error).toBe('step "step": no LLM endpoint is configured')
  })
})
