/**
 * The environment the operator commands (`runs`, `approvals`, `graphs`, `audit verify`) read:
 * where Weave is and the token to call it with. Their `--url` and `--token` win over these.
 */
export const CLI_ENV_VARIABLES = ['WEAVE_URL', 'WEAVE_TOKEN'] as const

/** The default of `--url`: Weave started by `npm start` on this machine. */
export const DEFAULT_WEAVE_URL = 'http://127.0.0.1:3000'

/** The operator commands' settings from `env` (an empty value is unset, as for the server). */
export function operatorEnv(env: NodeJS.ProcessEnv): { url?: string; token?: string } {
  const url = env.WEAVE_URL?.trim()
  const token = env.WEAVE_TOKEN?.trim()
  return { ...(url ? { url } : {}), ...(token ? { token } : {}) }
}
