export * from './env-values.js'
export * from './shared-env.js'
