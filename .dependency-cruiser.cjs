/**
 * The package layering of docs/architecture.md (Layout), enforced: dependencies point one way
 * (kernel ← pgstore, spec ← db ← config, queue ← apps), no cycles, apps never import each other.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kernel-imports-nothing',
      comment: 'The kernel has zero runtime dependencies and no node: imports.',
      severity: 'error',
      from: { path: '^packages/kernel/src' },
      to: { pathNot: '^packages/kernel/src' },
    },
    {
      name: 'client-imports-only-its-dependencies',
      comment:
        'The client runs on Node, Deno and browsers: fetch only, no node: imports, no other package.',
      severity: 'error',
      from: { path: '^packages/client/src' },
      to: {
        pathNot: [
          '^packages/client/src',
          '^node_modules/(openapi-fetch|openapi-typescript-helpers|standardwebhooks|@stablelib/base64|fast-sha256)/',
        ],
      },
    },
    {
      name: 'pgstore-imports-only-kernel',
      severity: 'error',
      from: { path: '^packages/pgstore/src' },
      to: {
        pathNot: ['^packages/(pgstore|kernel)/src', '^node_modules/(pg|pg-.*|@types/pg)/'],
        dependencyTypesNot: ['core'],
      },
    },
    {
      name: 'spec-imports-only-kernel',
      severity: 'error',
      from: { path: '^packages/spec/src' },
      to: { path: '^packages/(pgstore|db)/|^apps/' },
    },
    {
      name: 'queue-imports-only-db',
      comment: 'The queue package knows job names and schemas (db) and BullMQ, nothing else.',
      severity: 'error',
      from: { path: '^packages/queue/src' },
      to: { path: '^packages/(pgstore|spec|kernel)/|^apps/' },
    },
    {
      name: 'config-imports-only-db',
      comment: 'The shared environment parses values; it knows the db helpers for URLs and keys.',
      severity: 'error',
      from: { path: '^packages/config/src' },
      to: { path: '^packages/(pgstore|spec|kernel|queue)/|^apps/' },
    },
    {
      name: 'db-imports-no-app-or-pgstore',
      severity: 'error',
      from: { path: '^packages/db/src' },
      to: { path: '^apps/|^packages/(pgstore|queue)/' },
    },
    {
      name: 'packages-import-no-app',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'api-does-not-import-other-apps',
      severity: 'error',
      from: { path: '^apps/api/' },
      to: { path: '^apps/(worker|cli)/' },
    },
    {
      name: 'worker-does-not-import-other-apps',
      severity: 'error',
      from: { path: '^apps/worker/' },
      to: { path: '^apps/(api|cli)/' },
    },
    {
      name: 'import-packages-by-name',
      comment: 'Import another package by its name (@weave/x), never by a relative path.',
      severity: 'error',
      from: { path: '^(packages|apps)/([^/]+)/' },
      to: { path: '^(packages|apps)/', pathNot: '^$1/$2/', dependencyTypesNot: ['npm', 'local'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(test|node_modules)/|\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: true,
    preserveSymlinks: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
}
