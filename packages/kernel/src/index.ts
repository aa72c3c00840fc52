export * from './errors.js'
export * from './json.js'
export * from './store.js'
