// Generated from openapi/openapi.json by `npm run client:generate`; do not edit.
// `npm run client:check` fails when this file is not what the document generates.
export interface paths {
  '/healthz': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Liveness: the process is up
     * @description Answers 200 while the process serves requests, whatever the state of Postgres and Redis (that is `/readyz`): a liveness probe restarts only a process that is stuck.
     */
    get: operations['getHealth']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/metrics': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Prometheus metrics (text exposition format)
     * @description Needs `Authorization: Bearer <WEAVE_METRICS_TOKEN>` when that token is configured (not a JWT). Absent when metrics are off or served on WEAVE_API_METRICS_PORT.
     */
    get: operations['getMetrics']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/openapi.json': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * This OpenAPI 3.1 document
     * @description The description of every operation, webhook and schema of this server, as committed at openapi/openapi.json. The graph spec schema is also served on its own at `/schemas/graph-spec.json`.
     */
    get: operations['getOpenApiDocument']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/readyz': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Readiness: Postgres and Redis are reachable
     * @description Checks Postgres and Redis (answers are reused for a short while, so probes cannot load them) and names each one that is down: a load balancer sends no traffic to an instance that answers 503.
     */
    get: operations['getReadiness']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/schemas/graph-registration.json': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The JSON Schema of a graph registration body
     * @description A JSON Schema (draft 2020-12) whose `$id` is this path, generated from the schema Weave validates with. Name it in a file's `$schema` (e.g. `http://127.0.0.1:3000/schemas/graph-registration.json`) and editors validate and complete the file; registration ignores `$schema`. What a schema cannot express (expressions, routes naming steps, subgraphs) is checked at registration (422). Cacheable: revalidate with `If-None-Match`.
     */
    get: operations['getGraphRegistrationSchema']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/schemas/graph-spec.json': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * The JSON Schema of a graph spec
     * @description A JSON Schema (draft 2020-12) whose `$id` is this path, generated from the schema Weave validates with. Name it in a file's `$schema` (e.g. `http://127.0.0.1:3000/schemas/graph-spec.json`) and editors validate and complete the file; registration ignores `$schema`. What a schema cannot express (expressions, routes naming steps, subgraphs) is checked at registration (422). Cacheable: revalidate with `If-None-Match`.
     */
    get: operations['getGraphSpecSchema']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/approval-hooks/{token}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Apply the decision of an approveUrl or rejectUrl (single use)
     * @description The token is the credential: no bearer token. It decides as its recipient, under the approval's rules; the body may be omitted. 404: unknown or altered token; 409: link already used or approval already settled; 410: link expired. A refused request changes nothing.
     */
    post: operations['useApprovalLink']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/approvals': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the tenant's approvals, newest first
     * @description Approvals with their decisions, newest first, optionally only those with a `status` (`pending` for an inbox) or of one run (`runId`). Paged with `limit` and `cursor`.
     */
    get: operations['listApprovals']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/approvals/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get an approval with its decisions
     * @description What the approvers are shown (`title`, `details`) with its `materialHash`, who may decide, how many approvals it needs, and the decisions so far.
     */
    get: operations['getApproval']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/approvals/{id}/decision': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Approve or reject; a settled approval resumes its run once
     * @description The decision's `input` is saved with it in the approval step's record (checked against the step's `schema`; no top-level `__` keys), never merged into the run's state. With an `Idempotency-Key`, a retried identical request answers as the first did; the same key with another body is 409 `idempotency-conflict`.
     */
    post: operations['decideApproval']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/approvals/{id}/links': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Issue a single-use page link to a named approver
     * @description The link opens the approval page `/inbox/a/{token}`, where its recipient sees the approval and decides it as that subject, on the material shown when the link was made. It is never issued to a subject the approval refuses: 403 `separation-of-duties` for the run’s starter under separation of duties, `not-an-approver` when the approval names other subjects (or only scopes: a link carries none). The URL is a credential, returned in this answer only.
     */
    post: operations['issueApprovalLink']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/audit': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the tenant's audit events, newest first
     * @description Every change made through the API (and by the workers on its behalf) with its actor, target, request id and client IP, newest first; filter by `action`, `actor`, `targetId` and a time range (`since` inclusive, `until` exclusive). Paged with `limit` and `cursor`.
     */
    get: operations['listAuditEvents']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/audit/anchors': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the signed heads of the tenant's audit chain, newest first
     * @description Each anchor signs the chain's length and head hash at a moment, with the key of `GET /v1/audit/keys`, and says when the anchor webhook accepted it. Paged with `limit` and `cursor`.
     */
    get: operations['listAuditAnchors']
    put?: never
    /**
     * Sign the head of the tenant's audit chain now
     * @description Stores a signed anchor of the current head (seq 0 for an empty chain); the worker sends it to the anchor webhook at its next pass. Storing an anchor is a write, so it needs `audit:anchor`: `audit:read` alone is answered 403. 409 when the chain is shorter than its newest anchor: events it signed were removed.
     */
    post: operations['createAuditAnchor']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/audit/export': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Export the tenant's audit chain with its newest anchor, as NDJSON
     * @description One JSON object a line: the newest anchor first (`type: "audit-anchor"`, when there is one), then every event up to the head in seq order (`type: "audit-event"`). `weave audit verify-export <file> --public-key <key>` checks it offline.
     */
    get: operations['exportAuditLog']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/audit/keys': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get the public key audit anchors are signed with
     * @description The Ed25519 public key (raw and PEM) that signs this server's audit anchors, to verify an anchor or an export without trusting the server; empty when it signs none.
     */
    get: operations['listAuditKeys']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/audit/verify': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Verify the tenant's audit hash chain
     * @description Recomputes each event's hash from its content and the previous event's hash, oldest first: `ok: false` with `firstBadId` names the first event that was changed, removed or inserted out of band.
     */
    get: operations['verifyAuditLog']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/graphs': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the tenant's graphs, newest first
     * @description Each graph with its latest version's number, digest and description, newest first; archived graphs only with `includeArchived=true`. Paged with `limit` and `cursor`.
     */
    get: operations['listGraphs']
    put?: never
    /**
     * Register a graph spec (a new version unless it equals the latest)
     * @description The spec follows the JSON Schema at `/schemas/graph-spec.json` (and the whole body `/schemas/graph-registration.json`); a top-level `$schema` in either is ignored. Subgraph steps named without a version are bound to the latest version of their graph at registration (`subgraphVersions` of the version). Registering un-archives an archived graph. 413: the body is larger than the spec limit (256 KiB unless configured otherwise); 422: the spec is invalid, every problem listed.
     */
    post: operations['registerGraph']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/graphs/{name}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get a graph: its latest version and every version
     * @description The graph with its latest version (spec included) and a summary of every version, newest first. An archived graph is still shown, with `archivedAt`.
     */
    get: operations['getGraph']
    put?: never
    post?: never
    /**
     * Archive a graph: no new runs; existing runs finish
     * @description An archived graph refuses new runs and forks (409 `graph-archived`) and is left out of the list by default; runs already started finish. Registering a spec under its name un-archives it.
     */
    delete: operations['archiveGraph']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/graphs/{name}/topology': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get a graph's nodes and edges, as JSON or a Mermaid flowchart
     * @description The steps of a version (the latest by default) and the edges its routing can take, labelled with their branch; `to: null` ends the run. `format=mermaid` answers a Mermaid flowchart as text.
     */
    get: operations['getGraphTopology']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/graphs/{name}/versions/{version}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get one version of a graph with its spec as stored
     * @description The spec as stored (defaults applied), its digest, and the version each subgraph step named without one runs.
     */
    get: operations['getGraphVersion']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/retention': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get the tenant's retention policy
     * @description What the retention job keeps of finished runs where their graph sets no `retention` of its own. A tenant that never set a policy keeps everything.
     */
    get: operations['getRetentionPolicy']
    /**
     * Set the tenant's retention policy
     * @description Sets how much checkpoint history a finished run keeps and how many days after it finished a run is deleted with its checkpoints, events and webhook deliveries. A graph's own `retention` overrides it field by field. It applies to runs that finish from now on; the audit log is never pruned. Recorded in the audit log as `retention.updated`.
     */
    put: operations['putRetentionPolicy']
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the tenant's runs, newest first
     * @description Runs without their state, newest first, optionally only those of one `status`, `graph` or `concurrencyKey`; paged with `limit` and `cursor` (`nextCursor` of the previous page).
     */
    get: operations['listRuns']
    put?: never
    /**
     * Start a run of a graph (queued for a worker)
     * @description Starts a run of a graph's latest version (or `version`) with `input` as its initial state, checked against the spec's `input` schema. The run is queued: a worker takes it and steps it until it completes, fails or waits (for an approval, input or a timer); follow it with `GET /v1/runs/{id}` or its event stream. With an `Idempotency-Key`, the same request sent again within 24 h answers 200 with the run it started; the same key with another body is 409. With a `concurrencyKey`, at most `concurrencyLimit` runs of the key hold a slot at once; a run started beyond that waits in line (`queued` with a `linePosition`, no worker takes it) and is admitted in start order, with a `run.admitted` event, when a run of the key ends or is cancelled.
     */
    post: operations['startRun']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get a run with its latest state
     * @description The run with the state of its latest checkpoint (without the engine's `__` keys), what it waits for (`waitingOn`), its pending approvals, and why it failed.
     */
    get: operations['getRun']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs/{id}/cancel': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Cancel a run (queued or waiting: at once; running: at its next step)
     * @description A queued or waiting run is cancelled at once (its pending approvals expire); a running run gets `cancelRequested` and stops before its next step. A finished run cannot be cancelled (409).
     */
    post: operations['cancelRun']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs/{id}/events': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Stream a run's events (SSE), or list them with ?format=json
     * @description By default a `text/event-stream`: every event of the run in order, each with `id:` its sequence number, `event:` its type and `data:` the event as JSON; then new events as they happen, until the run's terminal event (`run.completed`, `run.failed`, `run.cancelled`), after which the stream ends. A `: ping` comment is sent while idle. Reconnect with `Last-Event-ID` (or `?lastEventId=`) to receive only later events. With `?format=json` (or `Accept: application/json` without `text/event-stream`) the events are a JSON list, paged with `limit` and `cursor`. Streams are limited per server and per tenant (503 with `Retry-After` beyond), and a stream whose client stops reading is ended; reconnecting with `Last-Event-ID` loses nothing. Each message of the stream is described by `RunEventStreamMessage`, and its `data` by `RunEvent`.
     */
    get: operations['listRunEvents']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs/{id}/fork': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Start a new run from one of its checkpoints (the source is untouched)
     * @description A new run of the same graph version continues from checkpoint `seq` of this one, with `input` merged into that state; the source run is not changed. When the input changes what an approval used up to `seq` was approved on, the fork starts where that approval was asked instead, so a person decides again.
     */
    post: operations['forkRun']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs/{id}/history': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List a run's checkpoints, oldest first
     * @description Every checkpoint the run saved, one per step (and one where it yielded), without state: a `seq` here is what `GET …/history/{seq}` reads and a fork starts from.
     */
    get: operations['getRunHistory']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs/{id}/history/{seq}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get one checkpoint of a run with its state
     * @description The state the run had after checkpoint `seq`, without the engine's `__` keys.
     */
    get: operations['getRunCheckpoint']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/runs/{id}/resume': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Resume a run waiting for input, or retry a failed run
     * @description A run waiting on an input step takes `input` as its answer (checked against the step's schema) and goes on; a failed run is retried from its last checkpoint, with `input` merged into its state first. A run waiting on an approval or a timer is not resumed here (409).
     */
    post: operations['resumeRun']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/schedules': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the tenant's schedules, newest first
     * @description Schedules that are not deleted, paused ones included; paged.
     */
    get: operations['listSchedules']
    put?: never
    /**
     * Create a schedule
     * @description Starts runs of a graph (or of a thread, from its latest state) with `input` on a `cron` expression read in an IANA `timezone`, or every `everyMs` milliseconds. Each tick fires once however many workers run, and is recorded as a firing (its run, or why it started none). A bad cron expression or time zone is 422 with a pointer to the field. Audited.
     */
    post: operations['createSchedule']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/schedules/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get a schedule
     * @description The schedule with its target, timing, input and policies; a deleted one is 404. Its firings are at `/v1/schedules/{id}/firings`.
     */
    get: operations['getSchedule']
    put?: never
    post?: never
    /**
     * Delete a schedule
     * @description The schedule fires no more and leaves the lists; runs it started are not touched. Audited.
     */
    delete: operations['deleteSchedule']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/schedules/{id}/events': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List a schedule's events, newest first
     * @description A schedule's changes: created, paused, resumed, deleted, and each firing with the run it started (`schedule.fired`) or why it started none (`schedule.skipped`); paged. A deleted schedule's events stay readable.
     */
    get: operations['listScheduleEvents']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/schedules/{id}/firings': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List a schedule's firings, newest first
     * @description Each firing with its tick, and the run it started or why it started none.
     */
    get: operations['listScheduleFirings']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/schedules/{id}/pause': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Pause a schedule
     * @description Stops the schedule firing until it is resumed; a no-op when it is paused. Audited.
     */
    post: operations['pauseSchedule']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/schedules/{id}/resume': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Resume a schedule
     * @description Lets a paused schedule fire again from its next tick; ticks that fell while it was paused are not caught up. A no-op when it is not paused. Audited.
     */
    post: operations['resumeSchedule']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/schedules/{id}/trigger': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Fire a schedule now
     * @description Fires the schedule once now, paused or not, under its overlap policy, and answers the firing: the run it started, or why it started none. The schedule's ticks are unchanged. Audited.
     */
    post: operations['triggerSchedule']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/threads': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the tenant's threads, newest first
     * @description Threads that are not archived, without their state, optionally only those of one `status` or whose metadata contains the JSON object `metadata`; paged with `limit` and `cursor`.
     */
    get: operations['listThreads']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/threads/{key}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * Get a thread with its latest state and active run
     * @description The thread's status, its active run, and the latest state of its newest run: what the next run starts from.
     */
    get: operations['getThread']
    /**
     * Create a thread, or update its metadata and strategy
     * @description Creates the thread `key` for a graph (201), or answers the existing one (200) with the `metadata` and `strategy` sent replacing its own. A thread of another graph, or an archived one, is 409.
     */
    put: operations['putThread']
    post?: never
    /**
     * Archive a thread
     * @description Archives a thread with no active run (409 otherwise); it takes no more runs and leaves the lists, and its key stays taken. Audited.
     */
    delete: operations['archiveThread']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/threads/{key}/events': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List a thread's events, newest first
     * @description A thread's changes: created, updated, archived, and each run queued on it with the runs it interrupted or rolled back; paged. An archived thread's events stay readable.
     */
    get: operations['listThreadEvents']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/threads/{key}/runs': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List a thread's runs, newest first
     * @description The thread's runs without their state, newest first; paged.
     */
    get: operations['listThreadRuns']
    put?: never
    /**
     * Start a run from the thread's latest state
     * @description Starts a run that begins from the thread's latest state with `input` merged in by the graph's merge policies. While another run of the thread is active, the `strategy` (the request's, else the thread's) decides: `reject` answers 409 naming it in `activeRun`; `enqueue` holds the run until the runs before it ended; `interrupt` stops the active run at its next step boundary and continues from its progress; `rollback` cancels it and starts from the state before it.
     */
    post: operations['startThreadRun']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List the tenant's webhooks, newest first
     * @description Webhooks without their secrets, newest first; paged with `limit` and `cursor`.
     */
    get: operations['listWebhooks']
    put?: never
    /**
     * Register a webhook; the answer shows its signing secret, once
     * @description Weave POSTs each of the tenant's run events whose type is in `events` to `url`, signed per Standard Webhooks with the secret in this answer (see `webhooks` in this document for each payload). A webhook given `approvals:decide` also receives approval links in `approval.requested` deliveries; registering one needs that scope too. 503 when the server has no secrets key to keep the secret with.
     */
    post: operations['createWebhook']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks/{id}': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    post?: never
    /**
     * Delete a webhook; its pending deliveries are not sent
     * @description No event is delivered to it any more; deliveries still pending are not sent.
     */
    delete: operations['deleteWebhook']
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks/{id}/deliveries': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    /**
     * List a webhook's deliveries with every attempt, newest first
     * @description Each delivery (one per event sent to the webhook) with its status and every HTTP attempt: status code or error, and duration. Paged with `limit` and `cursor`.
     */
    get: operations['listWebhookDeliveries']
    put?: never
    post?: never
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  '/v1/webhooks/{id}/rotate-secret': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Give a webhook a new signing secret, shown once; the old one signs for a grace
     * @description During the grace each delivery carries two signatures in `webhook-signature` (one per secret, space-separated, as Standard Webhooks allows), so receivers verify with either while they switch. A second rotation drops the secret the first one replaced.
     */
    post: operations['rotateWebhookSecret']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
}
export interface webhooks {
  'run.queued': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.queued` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_queued']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'run.admitted': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.admitted` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_admitted']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'run.started': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.started` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_started']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'step.completed': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `step.completed` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_step_completed']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'run.waiting': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.waiting` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_waiting']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'approval.requested': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `approval.requested` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_approval_requested']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'approval.decided': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `approval.decided` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_approval_decided']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'run.resumed': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.resumed` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_resumed']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'run.completed': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.completed` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_completed']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'run.failed': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.failed` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_failed']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'run.cancelled': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `run.cancelled` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_run_cancelled']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'agent.message': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `agent.message` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_agent_message']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'tool.requested': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `tool.requested` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_tool_requested']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'tool.decided': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `tool.decided` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_tool_decided']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'tool.completed': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `tool.completed` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_tool_completed']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'tool.denied': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `tool.denied` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_tool_denied']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'agent.stopped': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a run's `agent.stopped` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_agent_stopped']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'thread.created': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a thread's `thread.created` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_thread_created']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'thread.updated': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a thread's `thread.updated` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_thread_updated']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'thread.archived': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a thread's `thread.archived` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_thread_archived']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'thread.run.queued': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a thread's `thread.run.queued` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_thread_run_queued']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'thread.run.interrupted': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a thread's `thread.run.interrupted` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_thread_run_interrupted']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'thread.run.rolled_back': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a thread's `thread.run.rolled_back` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_thread_run_rolled_back']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'schedule.created': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a schedule's `schedule.created` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_schedule_created']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'schedule.paused': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a schedule's `schedule.paused` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_schedule_paused']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'schedule.resumed': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a schedule's `schedule.resumed` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_schedule_resumed']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'schedule.deleted': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a schedule's `schedule.deleted` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_schedule_deleted']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'schedule.fired': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a schedule's `schedule.fired` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_schedule_fired']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
  'schedule.skipped': {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    get?: never
    put?: never
    /**
     * Delivers a schedule's `schedule.skipped` event to each webhook subscribed to it
     * @description Sent when the event is recorded, to every webhook of the tenant whose `events` include it. Verify `webhook-signature` (Standard Webhooks) before trusting the body. A 2xx answer within the timeout ends the delivery; anything else is retried with capped exponential backoff, up to 8 attempts, each with the same `webhook-id` and body. Redirects are not followed. `GET /v1/webhooks/{id}/deliveries` lists every attempt.
     */
    post: operations['deliver_schedule_skipped']
    delete?: never
    options?: never
    head?: never
    patch?: never
    trace?: never
  }
}
export interface components {
  schemas: {
    AgentStep: {
      /** @constant */
      kind: 'agent'
      model: string
      system?: string
      prompt: string
      tools: {
        [key: string]: {
          description?: string
          parameters?: {
            [key: string]: components['schemas']['JsonValue']
          }
          readOnly?: boolean
          call:
            | {
                /** @constant */
                kind: 'handler'
                handler: string
              }
            | {
                /** @constant */
                kind: 'http'
                /** @enum {string} */
                method: 'POST' | 'PUT' | 'PATCH' | 'DELETE'
                url: string
              }
            | {
                /** @constant */
                kind: 'mcp'
                server: string
                tool: string
                digest?: string
              }
            | {
                /** @constant */
                kind: 'subgraph'
                graph: string
                version?: number
              }
        }
      }
      permissions?: {
        tool: string
        when?: string
        /** @enum {string} */
        permission: 'allow' | 'ask' | 'deny'
        approval?: {
          title?: string
          approvers?: {
            subjects?: string[]
            scopes?: string[]
          }
          required?: number
          separationOfDuties?: boolean
          timeout?: string
          allow?: ('accept' | 'edit' | 'respond' | 'ignore')[]
        }
      }[]
      limits?: {
        maxTurns?: number
        maxToolCalls?: number
        tokens?: number
        usd?: number
      }
      prices?: {
        [key: string]: {
          input: number
          output: number
        }
      }
      saveAs?: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /**
     * @example {
     *       "id": "5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
     *       "runId": "0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11",
     *       "step": "review",
     *       "status": "pending",
     *       "title": "Refund 120 to c_42?",
     *       "details": null,
     *       "materialHash": "3b7e1f0a9c2d4e6f8a0b1c3d5e7f9a1b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f",
     *       "approvers": {},
     *       "required": 1,
     *       "separationOfDuties": true,
     *       "decisions": [],
     *       "expiresAt": "2025-02-02T09:30:01.000Z",
     *       "createdAt": "2025-01-31T09:30:01.000Z",
     *       "settledAt": null
     *     }
     */
    Approval: {
      /** Format: uuid */
      id: string
      /** Format: uuid */
      runId: string
      step: string
      /** @enum {string} */
      status: 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled'
      title: string
      /** @description What the step shows besides the title */
      details: unknown
      /** @description SHA-256 of the canonical JSON of { title, details }; send it with a decision */
      materialHash: string
      approvers: {
        subjects?: string[]
        scopes?: string[]
      }
      /** @description Approvals from distinct subjects needed */
      required: number
      separationOfDuties: boolean
      decisions: components['schemas']['ApprovalDecision'][]
      expiresAt: string | null
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      settledAt: string | null
    }
    ApprovalDecision: {
      by: string
      /** @enum {string} */
      decision: 'approve' | 'reject'
      comment: string | null
      /** @description The decider's input, as the approval step's record keeps it; null when none */
      input: unknown
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /**
     * @example {
     *       "comment": "Approved from the chat"
     *     }
     */
    ApprovalHookBody: {
      comment?: string
      /**
       * @description Saved with the decision in the approval step's record (under its `saveAs` key), checked against the step's `schema`; top-level keys must not start with `__`
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input?: {
        [key: string]: unknown
      }
    }
    /**
     * @example {
     *       "approvalId": "5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
     *       "decision": "approve",
     *       "status": "approved"
     *     }
     */
    ApprovalHookResult: {
      /** Format: uuid */
      approvalId: string
      /** @enum {string} */
      decision: 'approve' | 'reject'
      /**
       * @description `pending` when the approval needs more approvals
       * @enum {string}
       */
      status: 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled'
    }
    /**
     * @example {
     *       "url": "http://127.0.0.1:3000/inbox/a/Qm9i...",
     *       "recipient": "bob",
     *       "expiresAt": "2025-02-03T09:30:01.000Z"
     *     }
     */
    ApprovalLink: {
      /** @description The approval page `/inbox/a/{token}`: a credential */
      url: string
      recipient: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      expiresAt: string
    }
    ApprovalPage: {
      items: components['schemas']['Approval'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    ApprovalStep: {
      /** @constant */
      kind: 'approval'
      title: string
      details?: string
      approvers?: {
        subjects?: string[]
        scopes?: string[]
      }
      required?: number
      separationOfDuties?: boolean
      timeout?: string
      /** @enum {string} */
      onTimeout?: 'expire' | 'fail'
      saveAs?: string
      schema?:
        | boolean
        | {
            [key: string]: components['schemas']['JsonValue']
          }
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /**
     * @example {
     *       "id": "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a",
     *       "tenant": "acme",
     *       "seq": 12,
     *       "hash": "2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1",
     *       "at": "2025-01-31T10:00:00.000Z",
     *       "keyId": "9f86d081884c7d65",
     *       "signature": "q1xBvHFVQcLT2Nf8m6uYj2rB0d9m1Kx5QyUo6dJm0vGxMxJ3o6Qx5Bz8pQ7sV2wF1nR4tY6uI8oP0aS2dF4gHA",
     *       "createdBy": "system",
     *       "publishedAt": "2025-01-31T10:00:01.000Z"
     *     }
     */
    AuditAnchor: {
      /** Format: uuid */
      id: string
      tenant: string
      /** @description The chain had this many events (0: none) */
      seq: number
      /** @description The hash of event `seq` (the genesis hash for 0) */
      hash: string
      /**
       * Format: date-time
       * @description When it was signed
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
      /** @description The signing key, as `GET /v1/audit/keys` names it */
      keyId: string
      /** @description Ed25519 over the canonical JSON of `{type: "weave.audit-anchor.v1", tenant, seq, hash, at}`, base64url */
      signature: string
      /** @description `system` for a scheduled anchor */
      createdBy: string
      /** @description When the anchor webhook accepted it; null while not sent */
      publishedAt: string | null
    }
    AuditAnchorPage: {
      items: components['schemas']['AuditAnchor'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    /**
     * @example {
     *       "id": "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d",
     *       "seq": 12,
     *       "at": "2025-01-31T09:30:00.000Z",
     *       "tenant": "acme",
     *       "actor": "alice",
     *       "action": "run.started",
     *       "target": {
     *         "kind": "run",
     *         "id": "0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11"
     *       },
     *       "requestId": "req-42",
     *       "ip": "203.0.113.7",
     *       "details": {
     *         "graph": "refunds",
     *         "version": 2
     *       },
     *       "prevHash": "1f0e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
     *       "hash": "2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1"
     *     }
     */
    AuditEvent: {
      /** Format: uuid */
      id: string
      seq: number
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
      tenant: string
      actor: string
      action: string
      target: {
        kind: string
        id: string
      }
      requestId: string | null
      ip: string | null
      details: unknown
      prevHash: string
      hash: string
    }
    /** @description A line of the export: first the newest anchor (when there is one), then every event in seq order */
    AuditExportLine:
      | {
          /** Format: uuid */
          id: string
          tenant: string
          /** @description The chain had this many events (0: none) */
          seq: number
          /** @description The hash of event `seq` (the genesis hash for 0) */
          hash: string
          /**
           * Format: date-time
           * @description When it was signed
           * @example 2025-01-31T09:30:00.000Z
           */
          at: string
          /** @description The signing key, as `GET /v1/audit/keys` names it */
          keyId: string
          /** @description Ed25519 over the canonical JSON of `{type: "weave.audit-anchor.v1", tenant, seq, hash, at}`, base64url */
          signature: string
          /** @description `system` for a scheduled anchor */
          createdBy: string
          /** @constant */
          type: 'audit-anchor'
        }
      | {
          /** Format: uuid */
          id: string
          seq: number
          /**
           * Format: date-time
           * @example 2025-01-31T09:30:00.000Z
           */
          at: string
          tenant: string
          actor: string
          action: string
          target: {
            kind: string
            id: string
          }
          requestId: string | null
          ip: string | null
          details: unknown
          prevHash: string
          hash: string
          /** @constant */
          type: 'audit-event'
        }
    /**
     * @example {
     *       "keys": [
     *         {
     *           "keyId": "9f86d081884c7d65",
     *           "algorithm": "Ed25519",
     *           "publicKey": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
     *           "pem": "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"
     *         }
     *       ]
     *     }
     */
    AuditKeys: {
      /** @description The key anchors are signed with; empty when this server signs none */
      keys: components['schemas']['AuditPublicKey'][]
    }
    AuditPage: {
      items: components['schemas']['AuditEvent'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    AuditPublicKey: {
      keyId: string
      /** @constant */
      algorithm: 'Ed25519'
      /** @description The raw 32-byte key, base64url */
      publicKey: string
      /** @description The same key as an SPKI PEM */
      pem: string
    }
    /**
     * @example {
     *       "ok": true,
     *       "checked": 42,
     *       "anchor": {
     *         "seq": 40,
     *         "hash": "2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1",
     *         "at": "2025-01-31T10:00:00.000Z",
     *         "keyId": "9f86d081884c7d65"
     *       }
     *     }
     * @example {
     *       "ok": false,
     *       "checked": 38,
     *       "anchor": {
     *         "seq": 40,
     *         "hash": "2e1f0d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f1",
     *         "at": "2025-01-31T10:00:00.000Z",
     *         "keyId": "9f86d081884c7d65"
     *       },
     *       "problem": "truncated",
     *       "firstBadSeq": 39
     *     }
     */
    AuditVerification: {
      ok: boolean
      /** @description Events read, up to and including a bad one */
      checked: number
      /** @description The newest anchor (highest seq signed) the chain was checked against; null without one */
      anchor: {
        seq: number
        hash: string
        /**
         * Format: date-time
         * @example 2025-01-31T09:30:00.000Z
         */
        at: string
        keyId: string
      } | null
      /**
       * @description `truncated`: the chain ends before the anchor's seq; `gap`: an event in the middle is missing; `edited`: an event was changed (or rewritten with a recomputed hash); `reordered`: an intact event sits at another seq; `anchor-invalid`: the anchor's signature does not verify
       * @enum {string}
       */
      problem?: 'truncated' | 'gap' | 'edited' | 'reordered' | 'anchor-invalid'
      /** @description The first wrong seq; for a gap or a truncation, the first missing one */
      firstBadSeq?: number
      /**
       * Format: uuid
       * @description The event at `firstBadSeq`, if any
       */
      firstBadId?: string
    }
    /**
     * @description `once`: after an outage the newest missed tick fires once (older ones are not replayed); `skip`: a missed tick (handled more than 60 s late, or fallen while Redis had lost the schedule) starts no run and is recorded as skipped, `missed`
     * @enum {string}
     */
    CatchUpPolicy: 'once' | 'skip'
    Checkpoint: {
      seq: number
      lastStep: string
      /** @enum {string} */
      status: 'step_done' | 'yielded' | 'failed'
      /** @enum {string} */
      yieldPhase?: 'mid_step' | 'after_step'
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      savedAt: string
      /**
       * @description A JSON object
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      state: {
        [key: string]: unknown
      }
    }
    CheckpointInfo: {
      seq: number
      lastStep: string
      /** @enum {string} */
      status: 'step_done' | 'yielded' | 'failed'
      /** @enum {string} */
      yieldPhase?: 'mid_step' | 'after_step'
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      savedAt: string
    }
    /** @example refunds:c_42 */
    ConcurrencyKey: string
    /**
     * @example {
     *       "target": {
     *         "graph": "reconciliation"
     *       },
     *       "cron": "0 6 * * 1",
     *       "timezone": "Europe/Berlin",
     *       "input": {
     *         "account": "acc_7"
     *       },
     *       "overlap": "skip"
     *     }
     */
    CreateScheduleBody: {
      /** @description What each firing runs: a graph (with an optional version) or a thread */
      target: {
        /**
         * @description Fire plain runs of this graph
         * @example refunds
         */
        graph?: string
        /** @description The graph's version to run; default: the latest at each firing */
        version?: number
        /**
         * @description Fire runs of this thread instead, each from the thread's latest state
         * @example support:customer-42
         */
        thread?: string
      }
      /**
       * @description A cron expression (5 fields, or 6 with seconds first), as BullMQ reads it; give either `cron` or `everyMs`
       * @example 0 9 * * 1-5
       */
      cron?: string
      /**
       * @description The IANA time zone `cron` is read in; default `UTC`
       * @example Europe/Berlin
       */
      timezone?: string
      /** @description Fire every this many milliseconds (at least 1000) instead */
      everyMs?: number
      /**
       * @description Each firing's run input; default {}
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input?: {
        [key: string]: unknown
      }
      /** @description Default `skip` */
      overlap?: components['schemas']['OverlapPolicy']
      /** @description Default `once` */
      catchUp?: components['schemas']['CatchUpPolicy']
      /** @description Create it paused; default false */
      paused?: boolean
    }
    /**
     * @example {
     *       "url": "https://hooks.example.com/weave",
     *       "events": [
     *         "approval.requested",
     *         "run.completed"
     *       ],
     *       "scopes": [
     *         "approvals:decide"
     *       ]
     *     }
     */
    CreateWebhookBody: {
      /** @description Where deliveries are POSTed. Private, loopback and link-local addresses are refused unless the server allow-lists them (WEAVE_HTTP_ALLOW); redirects are not followed. */
      url: string
      /** @description Event types to deliver: run, thread and schedule events */
      events: (
        | 'run.queued'
        | 'run.admitted'
        | 'run.started'
        | 'step.completed'
        | 'run.waiting'
        | 'approval.requested'
        | 'approval.decided'
        | 'run.resumed'
        | 'run.completed'
        | 'run.failed'
        | 'run.cancelled'
        | 'agent.message'
        | 'tool.requested'
        | 'tool.decided'
        | 'tool.completed'
        | 'tool.denied'
        | 'agent.stopped'
        | 'thread.created'
        | 'thread.updated'
        | 'thread.archived'
        | 'thread.run.queued'
        | 'thread.run.interrupted'
        | 'thread.run.rolled_back'
        | 'schedule.created'
        | 'schedule.paused'
        | 'schedule.resumed'
        | 'schedule.deleted'
        | 'schedule.fired'
        | 'schedule.skipped'
      )[]
      /** @description What the webhook may do. `approvals:decide`: its `approval.requested` deliveries carry single-use `approveUrl` and `rejectUrl` links; registering it needs a token holding `approvals:decide` too. */
      scopes?: 'approvals:decide'[]
    }
    /**
     * @example {
     *       "id": "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
     *       "url": "https://hooks.example.com/weave",
     *       "events": [
     *         "approval.requested",
     *         "run.completed"
     *       ],
     *       "scopes": [
     *         "approvals:decide"
     *       ],
     *       "createdBy": "alice",
     *       "createdAt": "2025-01-31T09:30:00.000Z",
     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
     *     }
     */
    CreatedWebhook: {
      /** Format: uuid */
      id: string
      url: string
      events: string[]
      scopes: string[]
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /** @description The Standard Webhooks signing secret (`whsec_…`). Shown only in this response: store it to verify the `webhook-signature` header of each delivery. */
      secret: string
    }
    /**
     * @example {
     *       "decision": "approve",
     *       "comment": "Looks right",
     *       "materialHash": "3b7e1f0a9c2d4e6f8a0b1c3d5e7f9a1b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f"
     *     }
     */
    DecisionBody: {
      /** @enum {string} */
      decision: 'approve' | 'reject'
      comment?: string
      /**
       * @description Saved with the decision in the approval step's record (under its `saveAs` key), checked against the step's `schema`; top-level keys must not start with `__`
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input?: {
        [key: string]: unknown
      }
      /** @description The materialHash the decider was shown; 409 when it is stale */
      materialHash?: string
    }
    FailStep: {
      /** @constant */
      kind: 'fail'
      message: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    FieldError: {
      /**
       * @description JSON Pointer into the request, starting with /body, /query, /params or /headers
       * @example /body/input/amount
       */
      path: string
      message: string
    }
    /**
     * @example {
     *       "seq": 1,
     *       "input": {
     *         "amount": 80
     *       }
     *     }
     */
    ForkRunBody: {
      /** @description The history entry to continue from */
      seq: number
      /**
       * @description Merged into the forked state (same key rules as a run input). When it changes what an approval used up to `seq` was approved on, the fork starts where that approval was asked instead (its `forkedSeq`), so a person is asked again
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input?: {
        [key: string]: unknown
      }
    }
    Graph: {
      name: string
      archivedAt: string | null
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      latest: components['schemas']['GraphVersion']
      versions: components['schemas']['GraphVersionSummary'][]
    }
    GraphPage: {
      items: components['schemas']['GraphSummary'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    /**
     * Weave graph spec
     * @description A graph as a JSON document: its entry step, its steps, the schema of its input, merge policies and limits (docs/graph-spec.md).
     */
    GraphSpec: {
      /** @description The JSON Schema this document follows, for editors; Weave ignores it */
      $schema?: string
      entry: string
      steps: {
        [key: string]: components['schemas']['Step']
      }
      input?:
        | boolean
        | {
            [key: string]: components['schemas']['JsonValue']
          }
      merge?: {
        [key: string]: 'overwrite' | 'append' | 'sum' | 'mergeObject'
      }
      limits?: {
        maxIterations?: number
        stepBudget?: number
      }
      /** @description Default: -1. */
      history?: number
      retention?: {
        checkpoints?:
          | ('all' | 'none')
          | {
              last: number
            }
        runDays?: number
      }
    }
    GraphSummary: {
      name: string
      latestVersion: number
      digest: string
      description: string | null
      archivedAt: string | null
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @description When the latest version was registered
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
    }
    GraphVersion: {
      version: number
      digest: string
      description: string | null
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      name: string
      /** @description The spec as stored: defaults applied, without `$schema` */
      spec: components['schemas']['GraphSpec']
      /**
       * @description The version each subgraph step named without one runs: the latest when this version was registered
       * @example {
       *       "refund-checks": 3
       *     }
       */
      subgraphVersions: {
        [key: string]: number
      }
    }
    GraphVersionSummary: {
      version: number
      digest: string
      description: string | null
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
    }
    HandlerStep: {
      /** @constant */
      kind: 'handler'
      name: string
      config?: components['schemas']['JsonValue']
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    Health: {
      /** @constant */
      status: 'ok'
    }
    HttpStep: {
      /** @constant */
      kind: 'http'
      /** @enum {string} */
      method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
      url: string
      headers?: {
        [key: string]: string
      }
      body?: string
      timeoutMs?: number
      retry?: {
        attempts: number
        backoffMs?: number
      }
      expectStatus?: number | number[]
      saveAs?: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    InputStep: {
      /** @constant */
      kind: 'input'
      schema?:
        | boolean
        | {
            [key: string]: components['schemas']['JsonValue']
          }
      prompt?: string
      saveAs?: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /**
     * @example {
     *       "recipient": "bob",
     *       "expiresInSeconds": 86400
     *     }
     */
    IssueLinkBody: {
      /** @description The subject the link decides as; the approval’s rules must admit it */
      recipient: string
      /**
       * @description The link's lifetime; never beyond the approval's own expiry
       * @default 259200
       */
      expiresInSeconds?: number
    }
    /** @description Any JSON value */
    JsonValue: JsonValue
    LlmStep: {
      /** @constant */
      kind: 'llm'
      model: string
      system?: string
      prompt: string
      json?: boolean
      saveAs?: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /**
     * @description `reject`: 409 naming the active run; `enqueue`: runs after the active ones, from the last one's final state; `interrupt`: the active run stops at its next step boundary keeping its progress, and the new run starts from there; `rollback`: the active run is cancelled and the new run starts from the state before it
     * @enum {string}
     */
    MultitaskStrategy: 'reject' | 'enqueue' | 'interrupt' | 'rollback'
    /**
     * @example {
     *       "type": "/problems/not-ready",
     *       "title": "Not ready",
     *       "status": 503,
     *       "detail": "Not reachable: postgres.",
     *       "instance": "/readyz",
     *       "checks": {
     *         "postgres": "failed",
     *         "redis": "ok"
     *       }
     *     }
     */
    NotReadyProblem: {
      /**
       * @description URI reference naming the problem type: `/problems/<name>`
       * @example /problems/run-not-found
       */
      type: string
      /** @description Short summary of the problem type */
      title: string
      /** @description The HTTP status code */
      status: number
      /** @description What went wrong with this request */
      detail: string
      /** @description The path of the request */
      instance?: string
      /** @description Every invalid field */
      errors?: components['schemas']['FieldError'][]
      checks: {
        [key: string]: 'ok' | 'failed'
      }
    } & {
      [key: string]: unknown
    }
    /**
     * @description `skip`: the firing starts no run (recorded as skipped, `overlap`); `enqueue` (thread targets only): the run waits behind the thread's active run; `allow`: the run starts regardless (a thread target's own multitask strategy still applies)
     * @enum {string}
     */
    OverlapPolicy: 'skip' | 'enqueue' | 'allow'
    ParallelStep: {
      /** @constant */
      kind: 'parallel'
      branches: {
        [key: string]:
          | {
              /** @constant */
              kind: 'set'
              values: {
                [key: string]: string
              }
            }
          | {
              /** @constant */
              kind: 'http'
              /** @enum {string} */
              method: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
              url: string
              headers?: {
                [key: string]: string
              }
              body?: string
              timeoutMs?: number
              retry?: {
                attempts: number
                backoffMs?: number
              }
              expectStatus?: number | number[]
              saveAs?: string
            }
          | {
              /** @constant */
              kind: 'llm'
              model: string
              system?: string
              prompt: string
              json?: boolean
              saveAs?: string
            }
          | {
              /** @constant */
              kind: 'handler'
              name: string
              config?: components['schemas']['JsonValue']
            }
          | {
              /** @constant */
              kind: 'subgraph'
              graph: string
              version?: number
              input?: string
              saveAs?: string
            }
      }
      saveAs?: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /** @description RFC 9457 problem details (application/problem+json); each response shows the types it may carry */
    Problem: {
      /**
       * @description URI reference naming the problem type: `/problems/<name>`
       * @example /problems/run-not-found
       */
      type: string
      /** @description Short summary of the problem type */
      title: string
      /** @description The HTTP status code */
      status: number
      /** @description What went wrong with this request */
      detail: string
      /** @description The path of the request */
      instance?: string
      /** @description Every invalid field */
      errors?: components['schemas']['FieldError'][]
    } & {
      [key: string]: unknown
    }
    /**
     * @example {
     *       "checkpoints": {
     *         "last": 10
     *       },
     *       "runDays": 90
     *     }
     */
    PutRetentionPolicyBody: {
      /** @description How much of a finished run's checkpoint history is kept: `"all"`, `"none"` (only the run's latest checkpoint, its final state) or `{ "last": n }` (the newest n entries). A run that has not finished keeps all of it. */
      checkpoints:
        | ('all' | 'none')
        | {
            last: number
          }
      /** @description Days after a run finished when it is deleted with its checkpoints, events and webhook deliveries; null keeps runs. The audit log is never pruned. */
      runDays: number | null
    }
    /**
     * @example {
     *       "graph": "support",
     *       "metadata": {
     *         "customer": "c_42"
     *       },
     *       "strategy": "enqueue"
     *     }
     */
    PutThreadBody: {
      /** @example refunds */
      graph: string
      /** @description Pins the thread's runs to this version; default: each run takes the latest */
      version?: number
      /**
       * @description Free-form JSON object the caller filters threads by
       * @example {
       *       "customer": "c_42",
       *       "channel": "email"
       *     }
       */
      metadata?: {
        [key: string]: unknown
      }
      /** @description Default `reject` */
      strategy?: components['schemas']['MultitaskStrategy']
    }
    /**
     * @example {
     *       "status": "ok",
     *       "checks": {
     *         "postgres": "ok",
     *         "redis": "ok"
     *       }
     *     }
     */
    Readiness: {
      /** @constant */
      status: 'ok'
      checks: {
        [key: string]: 'ok' | 'failed'
      }
    }
    /**
     * @example {
     *       "name": "refunds",
     *       "spec": {
     *         "entry": "classify",
     *         "input": {
     *           "type": "object",
     *           "required": [
     *             "amount",
     *             "customer"
     *           ],
     *           "properties": {
     *             "amount": {
     *               "type": "number"
     *             },
     *             "customer": {
     *               "type": "string"
     *             }
     *           }
     *         },
     *         "steps": {
     *           "classify": {
     *             "kind": "set",
     *             "values": {
     *               "risk": "amount > 100 ? 'high' : 'low'"
     *             },
     *             "next": {
     *               "branch": "risk",
     *               "routes": {
     *                 "high": "review"
     *               },
     *               "default": null
     *             }
     *           },
     *           "review": {
     *             "kind": "approval",
     *             "title": "Refund {{ amount }} to {{ customer }}?"
     *           }
     *         }
     *       },
     *       "description": "Customer refunds"
     *     }
     */
    RegisterGraphBody: {
      /** @description The JSON Schema of this document, for editors (`/schemas/graph-registration.json`); ignored */
      $schema?: string
      /** @example refunds */
      name: string
      /** @description The graph spec (docs/graph-spec.md). A top-level `$schema` member is ignored: spec files may name `/schemas/graph-spec.json` */
      spec: components['schemas']['GraphSpec']
      description?: string
    }
    /**
     * @example {
     *       "name": "refunds",
     *       "version": 2,
     *       "digest": "9f2c6b1e0a4d8c7b3e5f1a2d4c6b8e0f9a1c3e5d7b9f0a2c4e6d8b0a1c3e5f7d",
     *       "createdAt": "2025-01-31T09:30:00.000Z"
     *     }
     */
    RegisteredGraph: {
      name: string
      version: number
      digest: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
    }
    /**
     * @example {
     *       "input": {
     *         "address": "1 Main St"
     *       }
     *     }
     */
    ResumeRunBody: {
      /**
       * @description The waiting input step's answer (checked against its schema), or state merged in before a retry (409 when it changes what a used approval was approved on); same key rules as a run input
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input?: {
        [key: string]: unknown
      }
    }
    /**
     * @description The tenant's retention policy; a graph's own `retention` overrides it field by field. Each retention pass applies the policy then in force to every finished run it has not visited yet, so the first pass after a policy is set applies it to runs that finished before as well; a run already visited keeps what was decided for it then.
     * @example {
     *       "checkpoints": {
     *         "last": 10
     *       },
     *       "runDays": 90,
     *       "updatedBy": "ops@acme",
     *       "updatedAt": "2025-01-31T10:00:00.000Z"
     *     }
     */
    RetentionPolicy: {
      /** @description How much of a finished run's checkpoint history is kept: `"all"`, `"none"` (only the run's latest checkpoint, its final state) or `{ "last": n }` (the newest n entries). A run that has not finished keeps all of it. */
      checkpoints:
        | ('all' | 'none')
        | {
            last: number
          }
      /** @description Days after a run finished when it is deleted with its checkpoints, events and webhook deliveries; null keeps runs. The audit log is never pruned. */
      runDays: number | null
      /** @description Who set it; null: never set */
      updatedBy: string | null
      /** @description When it was set; null: never set */
      updatedAt: string | null
    }
    /**
     * @example {
     *       "graceSeconds": 3600
     *     }
     */
    RotateWebhookSecretBody: {
      /** @description How long deliveries stay signed with the replaced secret too (default 24 h, at most 7 days; 0 drops it now) */
      graceSeconds?: number
    }
    /**
     * @example {
     *       "id": "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
     *       "secret": "whsec_3BNBbqBCSmXI0LmWNpfqgHVAczJzdNKD",
     *       "previousSecretExpiresAt": "2025-02-01T09:30:00.000Z"
     *     }
     */
    RotatedWebhookSecret: {
      /** Format: uuid */
      id: string
      /** @description The new signing secret (`whsec_…`). Shown only in this response. */
      secret: string
      /** @description Until then each delivery carries a signature by the replaced secret too; null when it was dropped at once */
      previousSecretExpiresAt: string | null
    }
    /**
     * @example {
     *       "id": "0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11",
     *       "graph": "refunds",
     *       "version": 2,
     *       "status": "waiting",
     *       "stopReason": "yielded",
     *       "lastStep": "review",
     *       "steps": 2,
     *       "state": {
     *         "amount": 120,
     *         "customer": "c_42",
     *         "risk": "high"
     *       },
     *       "error": null,
     *       "pendingApprovals": [
     *         "5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
     *       ],
     *       "waitingOn": {
     *         "kind": "approval",
     *         "step": "review",
     *         "approvalId": "5d1c2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
     *         "atSeq": 2
     *       },
     *       "cancelRequested": false,
     *       "createdBy": "alice",
     *       "createdAt": "2025-01-31T09:30:00.000Z",
     *       "updatedAt": "2025-01-31T09:30:01.000Z",
     *       "finishedAt": null,
     *       "forkedFrom": null,
     *       "forkedSeq": null,
     *       "concurrencyKey": null,
     *       "concurrencyLimit": null,
     *       "linePosition": null
     *     }
     */
    Run: {
      /** Format: uuid */
      id: string
      graph: string
      version: number
      /** @enum {string} */
      status: 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'
      stopReason: string | null
      lastStep: string | null
      steps: number
      /** @description Why a failed run failed; null otherwise */
      error: unknown
      waitingOn: components['schemas']['WaitingOn'] | null
      cancelRequested: boolean
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
      finishedAt: string | null
      forkedFrom: string | null
      forkedSeq: number | null
      concurrencyKey: components['schemas']['ConcurrencyKey'] | null
      /** @description The limit of the run's key */
      concurrencyLimit: number | null
      /**
       * @description The latest checkpoint's state without the engine's `__` keys ({} before one)
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      state: {
        [key: string]: unknown
      }
      /** @description Ids of pending approvals */
      pendingApprovals: string[]
      /** @description The run's place in its concurrency key's line (1: admitted next); null once admitted or for a run without a key */
      linePosition: number | null
    }
    RunEvent:
      | components['schemas']['RunEvent_run_queued']
      | components['schemas']['RunEvent_run_admitted']
      | components['schemas']['RunEvent_run_started']
      | components['schemas']['RunEvent_step_completed']
      | components['schemas']['RunEvent_run_waiting']
      | components['schemas']['RunEvent_approval_requested']
      | components['schemas']['RunEvent_approval_decided']
      | components['schemas']['RunEvent_run_resumed']
      | components['schemas']['RunEvent_run_completed']
      | components['schemas']['RunEvent_run_failed']
      | components['schemas']['RunEvent_run_cancelled']
      | components['schemas']['RunEvent_agent_message']
      | components['schemas']['RunEvent_tool_requested']
      | components['schemas']['RunEvent_tool_decided']
      | components['schemas']['RunEvent_tool_completed']
      | components['schemas']['RunEvent_tool_denied']
      | components['schemas']['RunEvent_agent_stopped']
      | components['schemas']['RunEvent_recorded']
    /**
     * @example {
     *       "items": [
     *         {
     *           "id": 1,
     *           "type": "run.queued",
     *           "data": {
     *             "graph": "refunds",
     *             "version": 2
     *           },
     *           "at": "2025-01-31T09:30:00.000Z"
     *         },
     *         {
     *           "id": 2,
     *           "type": "run.started",
     *           "data": {},
     *           "at": "2025-01-31T09:30:00.200Z"
     *         }
     *       ],
     *       "nextCursor": null
     *     }
     */
    RunEventPage: {
      items: components['schemas']['RunEvent'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    /**
     * @description One Server-Sent Events message: `id:`, `event:` and `data:` lines, then a blank line. The stream opens with `retry: 2000` and carries `: ping` comments while idle.
     * @example {
     *       "id": "1",
     *       "event": "run.queued",
     *       "data": {
     *         "id": 1,
     *         "type": "run.queued",
     *         "data": {
     *           "graph": "refunds",
     *           "version": 2
     *         },
     *         "at": "2025-01-31T09:30:00.000Z"
     *       }
     *     }
     */
    RunEventStreamMessage: {
      /** @description `id:` the event's id (its sequence number), sent back as `Last-Event-ID` */
      id: string
      /**
       * @description `event:` the event's type
       * @example run.queued
       */
      event: string
      data: components['schemas']['RunEvent']
    }
    /** @description A `agent.message` event. */
    RunEvent_agent_message: {
      id: number
      /** @constant */
      type: 'agent.message'
      data: {
        step: string
        turn: number
        content: string | null
        toolCalls: {
          callId: string
          tool: string
        }[]
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `agent.stopped` event. */
    RunEvent_agent_stopped: {
      id: number
      /** @constant */
      type: 'agent.stopped'
      data: {
        step: string
        /** @enum {string} */
        reason: 'max-turns' | 'max-tool-calls' | 'tokens' | 'usd'
        usage: {
          inputTokens: number
          outputTokens: number
          usd?: number
        }
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `approval.decided` event. */
    RunEvent_approval_decided: {
      id: number
      /** @constant */
      type: 'approval.decided'
      data: {
        /** Format: uuid */
        approvalId: string
        step: string
        /** @enum {string} */
        status: 'pending' | 'approved' | 'rejected' | 'expired'
        by: string | null
        decision: ('approve' | 'reject') | null
        comment: string | null
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `approval.requested` event. */
    RunEvent_approval_requested: {
      id: number
      /** @constant */
      type: 'approval.requested'
      data: {
        /** Format: uuid */
        approvalId: string
        step: string
        title: string
        details: components['schemas']['JsonValue']
        materialHash: string
        required: number
        expiresAt: string | null
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description An event as recorded, for data written before its type's schema. `run.queued` { graph, version, forkedFrom?, forkedSeq?, thread?, held?, schedule?, concurrencyKey? }; `run.admitted` { concurrencyKey }; `run.started` {}; `step.completed` { step, seq }; `run.waiting` a WaitingOn; `approval.requested` { approvalId, step, title, details, materialHash, required, expiresAt }; `approval.decided` { approvalId, step, status, by, decision, comment }; `run.resumed` { reason }; `run.completed` { steps, lastStep }; `run.failed` { name, message, step, stopReason }; `run.cancelled` { by }; `agent.message` { step, turn, content, toolCalls }; `tool.requested` { step, callId, tool, arguments }; `tool.decided` { step, callId, tool, approvalId, status }; `tool.completed` { step, callId, tool, readOnly, argumentsDigest, approvalId, edited }; `tool.denied` { step, callId, tool, reason }; `agent.stopped` { step, reason, usage } */
    RunEvent_recorded: {
      id: number
      type: string
      data: unknown
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.admitted` event. */
    RunEvent_run_admitted: {
      id: number
      /** @constant */
      type: 'run.admitted'
      data: {
        concurrencyKey: string
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.cancelled` event. */
    RunEvent_run_cancelled: {
      id: number
      /** @constant */
      type: 'run.cancelled'
      data: {
        by: string | null
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.completed` event. */
    RunEvent_run_completed: {
      id: number
      /** @constant */
      type: 'run.completed'
      data: {
        steps: number
        lastStep: string
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.failed` event. */
    RunEvent_run_failed: {
      id: number
      /** @constant */
      type: 'run.failed'
      data: {
        name: string
        message: string
        step: string | null
        stopReason: string
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.queued` event. */
    RunEvent_run_queued: {
      id: number
      /** @constant */
      type: 'run.queued'
      data: {
        graph: string
        version: number
        /** Format: uuid */
        forkedFrom?: string
        forkedSeq?: number
        thread?: string
        held?: boolean
        /** Format: uuid */
        schedule?: string
        concurrencyKey?: string
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.resumed` event. */
    RunEvent_run_resumed: {
      id: number
      /** @constant */
      type: 'run.resumed'
      data: {
        /** @enum {string} */
        reason: 'approval-decided' | 'approval-expired' | 'input' | 'retry' | 'timer' | 'run'
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.started` event. */
    RunEvent_run_started: {
      id: number
      /** @constant */
      type: 'run.started'
      data: Record<string, never>
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `run.waiting` event. */
    RunEvent_run_waiting: {
      id: number
      /** @constant */
      type: 'run.waiting'
      data:
        | {
            /** @constant */
            kind: 'approval'
            step: string
            /** Format: uuid */
            approvalId: string
            approvalIds?: string[]
            atSeq: number
          }
        | {
            /** @constant */
            kind: 'input'
            step: string
            atSeq: number
            prompt: string | null
            schema: components['schemas']['JsonValue']
            saveAs: string | null
          }
        | {
            /** @constant */
            kind: 'wait'
            step: string
            atSeq: number
            /** Format: date-time */
            until: string
          }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `step.completed` event. */
    RunEvent_step_completed: {
      id: number
      /** @constant */
      type: 'step.completed'
      data: {
        step: string
        seq: number
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `tool.completed` event. */
    RunEvent_tool_completed: {
      id: number
      /** @constant */
      type: 'tool.completed'
      data: {
        step: string
        callId: string
        tool: string
        readOnly: boolean
        argumentsDigest: string | null
        approvalId: string | null
        edited: boolean
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `tool.decided` event. */
    RunEvent_tool_decided: {
      id: number
      /** @constant */
      type: 'tool.decided'
      data: {
        step: string
        callId: string
        tool: string
        approvalId: string | null
        /** @enum {string} */
        status: 'approved' | 'rejected' | 'expired'
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `tool.denied` event. */
    RunEvent_tool_denied: {
      id: number
      /** @constant */
      type: 'tool.denied'
      data: {
        step: string
        callId: string
        tool: string
        /** @enum {string} */
        reason: 'policy' | 'invalid'
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /** @description A `tool.requested` event. */
    RunEvent_tool_requested: {
      id: number
      /** @constant */
      type: 'tool.requested'
      data: {
        step: string
        callId: string
        tool: string
        arguments: string
      }
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    /**
     * @example {
     *       "items": [
     *         {
     *           "seq": 1,
     *           "lastStep": "classify",
     *           "status": "step_done",
     *           "savedAt": "2025-01-31T09:30:00.500Z"
     *         },
     *         {
     *           "seq": 2,
     *           "lastStep": "review",
     *           "status": "yielded",
     *           "yieldPhase": "mid_step",
     *           "savedAt": "2025-01-31T09:30:01.000Z"
     *         }
     *       ]
     *     }
     */
    RunHistory: {
      items: components['schemas']['CheckpointInfo'][]
    }
    RunPage: {
      items: components['schemas']['RunSummary'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    RunSummary: {
      /** Format: uuid */
      id: string
      graph: string
      version: number
      /** @enum {string} */
      status: 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'
      stopReason: string | null
      lastStep: string | null
      steps: number
      /** @description Why a failed run failed; null otherwise */
      error: unknown
      waitingOn: components['schemas']['WaitingOn'] | null
      cancelRequested: boolean
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
      finishedAt: string | null
      forkedFrom: string | null
      forkedSeq: number | null
      concurrencyKey: components['schemas']['ConcurrencyKey'] | null
      /** @description The limit of the run's key */
      concurrencyLimit: number | null
    }
    Schedule: {
      /** Format: uuid */
      id: string
      target: {
        graph: string
        /** @description Null: the latest at each firing */
        version: number | null
        /** @description The thread key; null: plain runs */
        thread: string | null
      }
      cron: string | null
      timezone: string | null
      everyMs: number | null
      /**
       * @description A JSON object
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input: {
        [key: string]: unknown
      }
      overlap: components['schemas']['OverlapPolicy']
      catchUp: components['schemas']['CatchUpPolicy']
      paused: boolean
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
    }
    ScheduleFiring: {
      /** Format: uuid */
      id: string
      /** Format: uuid */
      scheduleId: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      firedAt: string
      /** @description The tick the firing was for; null for a manual trigger */
      scheduledFor: string | null
      manual: boolean
      /** @enum {string} */
      outcome: 'started' | 'skipped'
      /** @description The run it started; null when skipped */
      runId: string | null
      /** @description Why it started no run: `overlap` (a run of an earlier firing is active), `thread-busy` (the thread's strategy refused it), `missed` (late, catch-up `skip`), `target-unavailable` (the graph, version or thread is gone or archived), `input-invalid` (the input does not fit the input schema of the graph version the firing would run; the `schedule.skipped` event names each problem) */
      reason: ('overlap' | 'thread-busy' | 'missed' | 'target-unavailable' | 'input-invalid') | null
    }
    ScheduleFiringPage: {
      items: components['schemas']['ScheduleFiring'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    SchedulePage: {
      items: components['schemas']['Schedule'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    SetStep: {
      /** @constant */
      kind: 'set'
      values: {
        [key: string]: string
      }
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /**
     * @example {
     *       "graph": "refunds",
     *       "input": {
     *         "amount": 120,
     *         "customer": "c_42"
     *       }
     *     }
     * @example {
     *       "graph": "refunds",
     *       "input": {
     *         "amount": 80,
     *         "customer": "c_42"
     *       },
     *       "concurrencyKey": "refunds:c_42",
     *       "concurrencyLimit": 1
     *     }
     */
    StartRunBody: {
      /** @example refunds */
      graph: string
      /** @description Default: the latest version */
      version?: number
      /**
       * @description The run's initial state; checked against the spec's input schema. Top-level keys must not start with `__` or be an approval step's record key (its `saveAs`)
       * @default {}
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input?: {
        [key: string]: unknown
      }
      /** @description At most `concurrencyLimit` runs of this key (per tenant) hold a slot at once: queued for a worker, running, or waiting (for a person, input or a timer). A run started while they are all taken, or while runs wait already, waits in line (`queued`, with a `linePosition`) and is admitted in the order runs were started when a run of the key ends or is cancelled */
      concurrencyKey?: components['schemas']['ConcurrencyKey']
      /** @description Runs of `concurrencyKey` that may hold a slot at once (default 1). Each run keeps the limit it was started with and is admitted while fewer runs than that hold a slot; start the runs of a key with one limit */
      concurrencyLimit?: number
    }
    /**
     * @example {
     *       "input": {
     *         "messages": [
     *           {
     *             "role": "user",
     *             "content": "Where is my parcel?"
     *           }
     *         ]
     *       }
     *     }
     */
    StartThreadRunBody: {
      /**
       * @description Merged into the thread's latest state by the graph's merge policies when the run starts
       * @default {}
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      input?: {
        [key: string]: unknown
      }
      /** @description For this request only; default: the thread's strategy */
      strategy?: components['schemas']['MultitaskStrategy']
    }
    /** @description A step of the graph; `kind` says which */
    Step:
      | components['schemas']['SetStep']
      | components['schemas']['ApprovalStep']
      | components['schemas']['InputStep']
      | components['schemas']['HttpStep']
      | components['schemas']['LlmStep']
      | components['schemas']['WaitStep']
      | components['schemas']['SubgraphStep']
      | components['schemas']['ParallelStep']
      | components['schemas']['HandlerStep']
      | components['schemas']['FailStep']
      | components['schemas']['AgentStep']
    SubgraphStep: {
      /** @constant */
      kind: 'subgraph'
      graph: string
      version?: number
      input?: string
      saveAs?: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /**
     * @example {
     *       "id": "5d6e7f80-9a1b-4c2d-8e3f-4a5b6c7d8e9f",
     *       "type": "schedule.skipped",
     *       "subjectKind": "schedule",
     *       "subject": "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d",
     *       "actor": "schedule:2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d",
     *       "at": "2025-01-31T09:30:00.000Z",
     *       "data": {
     *         "schedule": "2a3b4c5d-6e7f-4a8b-9c0d-1e2f3a4b5c6d",
     *         "firingId": "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e",
     *         "tick": "2025-01-31T09:30:00.000Z",
     *         "manual": false,
     *         "reason": "input-invalid",
     *         "problems": [
     *           {
     *             "path": "/orderId",
     *             "message": "must be string"
     *           }
     *         ]
     *       }
     *     }
     */
    TenantEvent: {
      /**
       * Format: uuid
       * @description Also `data.eventId` of its webhook deliveries
       */
      id: string
      /** @enum {string} */
      type:
        | 'thread.created'
        | 'thread.updated'
        | 'thread.archived'
        | 'thread.run.queued'
        | 'thread.run.interrupted'
        | 'thread.run.rolled_back'
        | 'schedule.created'
        | 'schedule.paused'
        | 'schedule.resumed'
        | 'schedule.deleted'
        | 'schedule.fired'
        | 'schedule.skipped'
      /** @enum {string} */
      subjectKind: 'thread' | 'schedule'
      /** @description The thread's key or the schedule's id */
      subject: string
      /** @description Who made the change: a token subject, or `schedule:<id>` for a tick */
      actor: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
      /** @description As in the event type's webhook payload, without `eventId` */
      data: {
        [key: string]: unknown
      }
    }
    TenantEventPage: {
      items: components['schemas']['TenantEvent'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    Thread: {
      key: string
      graph: string
      /** @description The pinned version; null: the latest */
      version: number | null
      /**
       * @description A JSON object
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      metadata: {
        [key: string]: unknown
      }
      strategy: components['schemas']['MultitaskStrategy']
      /**
       * @description `idle`: no active run; `busy`: a run is queued or running; `waiting`: it waits
       * @enum {string}
       */
      status: 'idle' | 'busy' | 'waiting'
      /** @description The run now active; null when idle */
      activeRun: components['schemas']['RunSummary'] | null
      /**
       * @description The latest state of the thread's newest run (what the next run starts from), without the engine's `__` keys
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      state: {
        [key: string]: unknown
      }
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
    }
    ThreadPage: {
      items: components['schemas']['ThreadSummary'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    ThreadRun: {
      /** Format: uuid */
      id: string
      graph: string
      version: number
      /** @enum {string} */
      status: 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'
      stopReason: string | null
      lastStep: string | null
      steps: number
      /** @description Why a failed run failed; null otherwise */
      error: unknown
      waitingOn: components['schemas']['WaitingOn'] | null
      cancelRequested: boolean
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
      finishedAt: string | null
      forkedFrom: string | null
      forkedSeq: number | null
      concurrencyKey: components['schemas']['ConcurrencyKey'] | null
      /** @description The limit of the run's key */
      concurrencyLimit: number | null
      /**
       * @description The latest checkpoint's state without the engine's `__` keys ({} before one)
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      state: {
        [key: string]: unknown
      }
      /** @description Ids of pending approvals */
      pendingApprovals: string[]
      /** @description The run's place in its concurrency key's line (1: admitted next); null once admitted or for a run without a key */
      linePosition: number | null
      thread: string
      /** @description True while it waits for the thread's active run */
      held: boolean
    }
    ThreadRunPage: {
      items: components['schemas']['RunSummary'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    ThreadSummary: {
      key: string
      graph: string
      /** @description The pinned version; null: the latest */
      version: number | null
      /**
       * @description A JSON object
       * @example {
       *       "amount": 120,
       *       "customer": "c_42"
       *     }
       */
      metadata: {
        [key: string]: unknown
      }
      strategy: components['schemas']['MultitaskStrategy']
      /**
       * @description `idle`: no active run; `busy`: a run is queued or running; `waiting`: it waits
       * @enum {string}
       */
      status: 'idle' | 'busy' | 'waiting'
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
      activeRunId: string | null
    }
    /**
     * @example {
     *       "nodes": [
     *         {
     *           "id": "classify",
     *           "kind": "set"
     *         },
     *         {
     *           "id": "review",
     *           "kind": "approval"
     *         }
     *       ],
     *       "edges": [
     *         {
     *           "from": "classify",
     *           "to": "review",
     *           "label": "high"
     *         },
     *         {
     *           "from": "classify",
     *           "to": null,
     *           "label": "default"
     *         },
     *         {
     *           "from": "review",
     *           "to": null
     *         }
     *       ]
     *     }
     */
    Topology: {
      nodes: {
        id: string
        kind: string
        branches?: {
          id: string
          kind: string
        }[]
      }[]
      edges: {
        from: string
        to: string | null
        label?: string
      }[]
    }
    WaitStep: {
      /** @constant */
      kind: 'wait'
      duration?: string
      until?: string
      saveAs?: string
      next?:
        | null
        | string
        | {
            branch: string
            routes: {
              [key: string]: string | null
            }
            default?: string | null
          }
        | {
            when: {
              if: string
              then: string | null
            }[]
            else?: string | null
          }
    }
    /**
     * @example {
     *       "kind": "approval",
     *       "step": "review",
     *       "approvalId": "0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11",
     *       "atSeq": 2
     *     }
     */
    WaitingOn:
      | {
          /** @constant */
          kind: 'approval'
          step: string
          /** Format: uuid */
          approvalId: string
          /** @description Every approval the run waits on when an agent step asked about several tool calls of one turn at once (approvalId is the first); it resumes once all are settled */
          approvalIds?: string[]
          /** @description The checkpoint at which the run waits */
          atSeq: number
        }
      | {
          /** @constant */
          kind: 'input'
          step: string
          /** @description The checkpoint at which the run waits */
          atSeq: number
          prompt: string | null
          /** @description JSON Schema the input must satisfy; null when any JSON object will do */
          schema: unknown
          saveAs: string | null
        }
      | {
          /** @constant */
          kind: 'wait'
          step: string
          /** @description The checkpoint at which the run waits */
          atSeq: number
          /** Format: date-time */
          until: string
        }
    /**
     * @example {
     *       "id": "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
     *       "url": "https://hooks.example.com/weave",
     *       "events": [
     *         "approval.requested",
     *         "run.completed"
     *       ],
     *       "scopes": [
     *         "approvals:decide"
     *       ],
     *       "createdBy": "alice",
     *       "createdAt": "2025-01-31T09:30:00.000Z"
     *     }
     */
    Webhook: {
      /** Format: uuid */
      id: string
      url: string
      events: string[]
      scopes: string[]
      createdBy: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
    }
    /**
     * @example {
     *       "id": "3e4f5a6b-7c8d-4e9f-8a0b-1c2d3e4f5a6b",
     *       "webhookId": "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f",
     *       "eventType": "run.completed",
     *       "runId": "0b8f5a52-6c1e-4f7a-9a43-2b1d0c9e7f11",
     *       "eventSeq": 7,
     *       "eventId": null,
     *       "status": "succeeded",
     *       "attempts": [
     *         {
     *           "attempt": 1,
     *           "statusCode": 503,
     *           "error": null,
     *           "durationMs": 41,
     *           "at": "2025-01-31T09:30:01.000Z"
     *         },
     *         {
     *           "attempt": 2,
     *           "statusCode": 200,
     *           "error": null,
     *           "durationMs": 38,
     *           "at": "2025-01-31T09:30:02.000Z"
     *         }
     *       ],
     *       "nextAttemptAt": null,
     *       "createdAt": "2025-01-31T09:30:01.000Z",
     *       "updatedAt": "2025-01-31T09:30:02.000Z"
     *     }
     */
    WebhookDelivery: {
      /**
       * Format: uuid
       * @description Also the `webhook-id` header of every attempt
       */
      id: string
      /** Format: uuid */
      webhookId: string
      eventType: string
      /** @description A run event's run; null otherwise */
      runId: string | null
      /** @description A run event's number; null otherwise */
      eventSeq: number | null
      /** @description A thread or schedule event's id; null for a run event */
      eventId: string | null
      /** @enum {string} */
      status: 'pending' | 'succeeded' | 'failed'
      attempts: components['schemas']['WebhookDeliveryAttempt'][]
      /** @description When pending: the next attempt */
      nextAttemptAt: string | null
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      createdAt: string
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      updatedAt: string
    }
    WebhookDeliveryAttempt: {
      attempt: number
      /** @description Null when no response came */
      statusCode: number | null
      /** @description Why the attempt got no 2xx, if known */
      error: string | null
      durationMs: number
      /**
       * Format: date-time
       * @example 2025-01-31T09:30:00.000Z
       */
      at: string
    }
    WebhookDeliveryPage: {
      items: components['schemas']['WebhookDelivery'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    WebhookPage: {
      items: components['schemas']['Webhook'][]
      /** @description Pass as `cursor` for the next page; null on the last page */
      nextCursor: string | null
    }
    /** @description The body of a `agent.message` delivery. */
    WebhookPayload_agent_message: {
      /** @constant */
      type: 'agent.message'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        step: string
        turn: number
        content: string | null
        toolCalls: {
          callId: string
          tool: string
        }[]
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `agent.stopped` delivery. */
    WebhookPayload_agent_stopped: {
      /** @constant */
      type: 'agent.stopped'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        step: string
        /** @enum {string} */
        reason: 'max-turns' | 'max-tool-calls' | 'tokens' | 'usd'
        usage: {
          inputTokens: number
          outputTokens: number
          usd?: number
        }
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `approval.decided` delivery. */
    WebhookPayload_approval_decided: {
      /** @constant */
      type: 'approval.decided'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        approvalId: string
        step: string
        /** @enum {string} */
        status: 'pending' | 'approved' | 'rejected' | 'expired'
        by: string | null
        decision: ('approve' | 'reject') | null
        comment: string | null
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `approval.requested` delivery. */
    WebhookPayload_approval_requested: {
      /** @constant */
      type: 'approval.requested'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        approvalId: string
        step: string
        title: string
        details: components['schemas']['JsonValue']
        materialHash: string
        required: number
        expiresAt: string | null
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
        /**
         * Format: uri
         * @description POST here to approve, once (`POST /v1/approval-hooks/{token}`). Sent only to a webhook holding `approvals:decide`, by a server with a public URL, while the approval is pending, and only when no rule depends on who decides: never for a step with `separationOfDuties` or named `approvers`, since whoever follows a link is unknown
         */
        approveUrl?: string
        /**
         * Format: uri
         * @description POST here to reject, once
         */
        rejectUrl?: string
      }
    }
    /** @description The body of a `run.admitted` delivery. */
    WebhookPayload_run_admitted: {
      /** @constant */
      type: 'run.admitted'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        concurrencyKey: string
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `run.cancelled` delivery. */
    WebhookPayload_run_cancelled: {
      /** @constant */
      type: 'run.cancelled'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        by: string | null
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `run.completed` delivery. */
    WebhookPayload_run_completed: {
      /** @constant */
      type: 'run.completed'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        steps: number
        lastStep: string
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `run.failed` delivery. */
    WebhookPayload_run_failed: {
      /** @constant */
      type: 'run.failed'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        name: string
        message: string
        step: string | null
        stopReason: string
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `run.queued` delivery. */
    WebhookPayload_run_queued: {
      /** @constant */
      type: 'run.queued'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        graph: string
        version: number
        /** Format: uuid */
        forkedFrom?: string
        forkedSeq?: number
        thread?: string
        held?: boolean
        /** Format: uuid */
        schedule?: string
        concurrencyKey?: string
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `run.resumed` delivery. */
    WebhookPayload_run_resumed: {
      /** @constant */
      type: 'run.resumed'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** @enum {string} */
        reason: 'approval-decided' | 'approval-expired' | 'input' | 'retry' | 'timer' | 'run'
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `run.started` delivery. */
    WebhookPayload_run_started: {
      /** @constant */
      type: 'run.started'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `run.waiting` delivery. */
    WebhookPayload_run_waiting: {
      /** @constant */
      type: 'run.waiting'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data:
        | {
            /** @constant */
            kind: 'approval'
            step: string
            /** Format: uuid */
            approvalId: string
            approvalIds?: string[]
            atSeq: number
            /**
             * Format: uuid
             * @description The run the event belongs to
             */
            runId: string
            /** @description The event's id (sequence number) within the run */
            eventSeq: number
          }
        | {
            /** @constant */
            kind: 'input'
            step: string
            atSeq: number
            prompt: string | null
            schema: components['schemas']['JsonValue']
            saveAs: string | null
            /**
             * Format: uuid
             * @description The run the event belongs to
             */
            runId: string
            /** @description The event's id (sequence number) within the run */
            eventSeq: number
          }
        | {
            /** @constant */
            kind: 'wait'
            step: string
            atSeq: number
            /** Format: date-time */
            until: string
            /**
             * Format: uuid
             * @description The run the event belongs to
             */
            runId: string
            /** @description The event's id (sequence number) within the run */
            eventSeq: number
          }
    }
    /** @description The body of a `schedule.created` delivery. */
    WebhookPayload_schedule_created: {
      /** @constant */
      type: 'schedule.created'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        schedule: string
        target: {
          graph: string
          version: number | null
          thread: string | null
        }
        cron: string | null
        timezone: string | null
        everyMs: number | null
        paused: boolean
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `schedule.deleted` delivery. */
    WebhookPayload_schedule_deleted: {
      /** @constant */
      type: 'schedule.deleted'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        schedule: string
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `schedule.fired` delivery. */
    WebhookPayload_schedule_fired: {
      /** @constant */
      type: 'schedule.fired'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        schedule: string
        /** Format: uuid */
        firingId: string
        tick: string
        manual: boolean
        /** Format: uuid */
        runId: string
        held: boolean
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `schedule.paused` delivery. */
    WebhookPayload_schedule_paused: {
      /** @constant */
      type: 'schedule.paused'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        schedule: string
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `schedule.resumed` delivery. */
    WebhookPayload_schedule_resumed: {
      /** @constant */
      type: 'schedule.resumed'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        schedule: string
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `schedule.skipped` delivery. */
    WebhookPayload_schedule_skipped: {
      /** @constant */
      type: 'schedule.skipped'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        /** Format: uuid */
        schedule: string
        /** Format: uuid */
        firingId: string
        tick: string
        manual: boolean
        /** @enum {string} */
        reason: 'overlap' | 'thread-busy' | 'missed' | 'target-unavailable' | 'input-invalid'
        problems?: {
          path: string
          message: string
        }[]
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `step.completed` delivery. */
    WebhookPayload_step_completed: {
      /** @constant */
      type: 'step.completed'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        step: string
        seq: number
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `thread.archived` delivery. */
    WebhookPayload_thread_archived: {
      /** @constant */
      type: 'thread.archived'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        thread: string
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `thread.created` delivery. */
    WebhookPayload_thread_created: {
      /** @constant */
      type: 'thread.created'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        thread: string
        graph: string
        version: number | null
        /** @enum {string} */
        strategy: 'reject' | 'enqueue' | 'interrupt' | 'rollback'
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `thread.run.interrupted` delivery. */
    WebhookPayload_thread_run_interrupted: {
      /** @constant */
      type: 'thread.run.interrupted'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        thread: string
        /** Format: uuid */
        runId: string
        superseded: string[]
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `thread.run.queued` delivery. */
    WebhookPayload_thread_run_queued: {
      /** @constant */
      type: 'thread.run.queued'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        thread: string
        /** Format: uuid */
        runId: string
        /** @enum {string} */
        strategy: 'reject' | 'enqueue' | 'interrupt' | 'rollback'
        held: boolean
        /** Format: uuid */
        schedule?: string
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `thread.run.rolled_back` delivery. */
    WebhookPayload_thread_run_rolled_back: {
      /** @constant */
      type: 'thread.run.rolled_back'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        thread: string
        /** Format: uuid */
        runId: string
        superseded: string[]
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `thread.updated` delivery. */
    WebhookPayload_thread_updated: {
      /** @constant */
      type: 'thread.updated'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        thread: string
        changed: ('metadata' | 'strategy')[]
        /** @enum {string} */
        strategy: 'reject' | 'enqueue' | 'interrupt' | 'rollback'
        /**
         * Format: uuid
         * @description The event's id, as `GET …/events` lists it
         */
        eventId: string
      }
    }
    /** @description The body of a `tool.completed` delivery. */
    WebhookPayload_tool_completed: {
      /** @constant */
      type: 'tool.completed'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        step: string
        callId: string
        tool: string
        readOnly: boolean
        argumentsDigest: string | null
        approvalId: string | null
        edited: boolean
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `tool.decided` delivery. */
    WebhookPayload_tool_decided: {
      /** @constant */
      type: 'tool.decided'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        step: string
        callId: string
        tool: string
        approvalId: string | null
        /** @enum {string} */
        status: 'approved' | 'rejected' | 'expired'
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `tool.denied` delivery. */
    WebhookPayload_tool_denied: {
      /** @constant */
      type: 'tool.denied'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        step: string
        callId: string
        tool: string
        /** @enum {string} */
        reason: 'policy' | 'invalid'
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
    /** @description The body of a `tool.requested` delivery. */
    WebhookPayload_tool_requested: {
      /** @constant */
      type: 'tool.requested'
      /**
       * Format: date-time
       * @description When the event happened
       * @example 2025-01-31T09:30:00.000Z
       */
      timestamp: string
      data: {
        step: string
        callId: string
        tool: string
        arguments: string
        /**
         * Format: uuid
         * @description The run the event belongs to
         */
        runId: string
        /** @description The event's id (sequence number) within the run */
        eventSeq: number
      }
    }
  }
  responses: never
  parameters: never
  requestBodies: never
  headers: {
    /** @description The request's id: the caller's `X-Request-Id` when it is a safe token (1–128 of `A-Za-z0-9._:-`), otherwise a new UUID. Logs and audit events carry it. */
    XRequestId: string
  }
  pathItems: never
}
export type $defs = Record<string, never>
export interface operations {
  getHealth: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Health']
        }
      }
      /** @description Internal error */
      500: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getMetrics: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Metrics in the Prometheus text format */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'text/plain': string
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getOpenApiDocument: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': {
            [key: string]: unknown
          }
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getReadiness: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Readiness']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unreachable; `checks` says which */
      503: {
        headers: {
          /** @description Seconds until the checks run again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['NotReadyProblem']
        }
      }
    }
  }
  getGraphRegistrationSchema: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The schema */
      200: {
        headers: {
          /** @description The schema's version; send it back in `If-None-Match` */
          ETag?: string
          /** @description Shared caches may keep it for an hour */
          'Cache-Control'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/schema+json': {
            [key: string]: unknown
          }
        }
      }
      /** @description Not modified: the `If-None-Match` ETag is current */
      304: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getGraphSpecSchema: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The schema */
      200: {
        headers: {
          /** @description The schema's version; send it back in `If-None-Match` */
          ETag?: string
          /** @description Shared caches may keep it for an hour */
          'Cache-Control'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/schema+json': {
            [key: string]: unknown
          }
        }
      }
      /** @description Not modified: the `If-None-Match` ETag is current */
      304: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  useApprovalLink: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The single-use token at the end of the link */
        token: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['ApprovalHookBody'] | null
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ApprovalHookResult']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Gone: the link has expired */
      410: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is too large */
      413: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unavailable; see Retry-After */
      503: {
        headers: {
          /** @description Seconds to wait before sending the request again, when the dependency is expected back */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listApprovals: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
        status?: 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled'
        /** @description Only this run’s approvals */
        runId?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ApprovalPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getApproval: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Approval']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  decideApproval: {
    parameters: {
      query?: never
      header?: {
        /**
         * @description A retried request with this key and the same body answers as the first did; another body is refused (409)
         * @example review-5d1c-alice-1
         */
        'idempotency-key'?: string
      }
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['DecisionBody']
      }
    }
    responses: {
      /** @description The approval after the decision: settled, or still `pending` until enough approvers decided */
      200: {
        headers: {
          /** @description Present (`true`) when this answer replays the request an `Idempotency-Key` already made: nothing was changed this time */
          'Idempotent-Replayed'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Approval']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unavailable; see Retry-After */
      503: {
        headers: {
          /** @description Seconds to wait before sending the request again, when the dependency is expected back */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  issueApprovalLink: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['IssueLinkBody']
      }
    }
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ApprovalLink']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listAuditEvents: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
        /** @example approval.decided */
        action?: string
        actor?: string
        targetId?: string
        since?: string
        until?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['AuditPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listAuditAnchors: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['AuditAnchorPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  createAuditAnchor: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      201: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['AuditAnchor']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unavailable; see Retry-After */
      503: {
        headers: {
          /** @description Seconds to wait before sending the request again, when the dependency is expected back */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  exportAuditLog: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The export: one `AuditExportLine` a line */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/x-ndjson': components['schemas']['AuditExportLine']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listAuditKeys: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['AuditKeys']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  verifyAuditLog: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['AuditVerification']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listGraphs: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
        /** @description Include archived graphs */
        includeArchived?: 'true' | 'false'
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['GraphPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  registerGraph: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['RegisterGraphBody']
      }
    }
    responses: {
      /** @description The spec's digest equals the latest version's: no new version */
      200: {
        headers: {
          /** @description The registered version */
          Location?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RegisteredGraph']
        }
      }
      /** @description A new version was registered */
      201: {
        headers: {
          /** @description The registered version */
          Location?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RegisteredGraph']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is too large */
      413: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The input parses but does not validate */
      422: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getGraph: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @example refunds */
        name: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Graph']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  archiveGraph: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @example refunds */
        name: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Graph']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getGraphTopology: {
    parameters: {
      query?: {
        /** @description The version; the latest when absent */
        version?: number
        format?: 'json' | 'mermaid'
      }
      header?: never
      path: {
        /** @example refunds */
        name: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The topology (`format=json`) or a Mermaid flowchart (`format=mermaid`) */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Topology']
          'text/plain': string
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getGraphVersion: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @example refunds */
        name: string
        /**
         * @description A version number (1, 2, …)
         * @example 1
         */
        version: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['GraphVersion']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getRetentionPolicy: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RetentionPolicy']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  putRetentionPolicy: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['PutRetentionPolicyBody']
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RetentionPolicy']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is too large */
      413: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listRuns: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
        status?: 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled'
        /** @example refunds */
        graph?: string
        concurrencyKey?: components['schemas']['ConcurrencyKey']
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RunPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  startRun: {
    parameters: {
      query?: never
      header?: {
        /**
         * @description Replays the original run for 24 h when sent again with the same body
         * @example refund-c_42-2025-01-31
         */
        'idempotency-key'?: string
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['StartRunBody']
      }
    }
    responses: {
      /** @description The run this Idempotency-Key already started (same body) */
      200: {
        headers: {
          /** @description Present (`true`) when this answer replays the request an `Idempotency-Key` already made: nothing was changed this time */
          'Idempotent-Replayed'?: string
          /** @description The new run */
          Location?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Run']
        }
      }
      /** @description The run is queued (or waits in its concurrency key line) */
      202: {
        headers: {
          /** @description The new run */
          Location?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Run']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is too large */
      413: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getRun: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The run */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Run']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  cancelRun: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Cancelled, or cancellation requested */
      202: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Run']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listRunEvents: {
    parameters: {
      query?: {
        /** @description `json` for a JSON list; otherwise a `text/event-stream` */
        format?: 'json'
        /** @description JSON list: page size */
        limit?: number
        /** @description JSON list: `nextCursor` */
        cursor?: string
        /** @description Event stream: start after this event id (the `Last-Event-ID` header wins) */
        lastEventId?: string
      }
      header?: {
        /** @description Event stream: replay only the events after this id (sent by EventSource) */
        'last-event-id'?: string
      }
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The events: a live event stream, or a JSON list */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RunEventPage']
          'text/event-stream': components['schemas']['RunEventStreamMessage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unavailable; see Retry-After */
      503: {
        headers: {
          /** @description Seconds to wait before sending the request again, when the dependency is expected back */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  forkRun: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['ForkRunBody']
      }
    }
    responses: {
      /** @description The forked run is queued */
      202: {
        headers: {
          /** @description The new run */
          Location?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Run']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getRunHistory: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RunHistory']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getRunCheckpoint: {
    parameters: {
      query?: never
      header?: never
      path: {
        id: string
        seq: number
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Checkpoint']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  resumeRun: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['ResumeRunBody'] | null
      }
    }
    responses: {
      /** @description The resume is queued */
      202: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Run']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unavailable; see Retry-After */
      503: {
        headers: {
          /** @description Seconds to wait before sending the request again, when the dependency is expected back */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listSchedules: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['SchedulePage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  createSchedule: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateScheduleBody']
      }
    }
    responses: {
      /** @description The schedule was created */
      201: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Schedule']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The input parses but does not validate */
      422: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getSchedule: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The schedule id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Schedule']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  deleteSchedule: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The schedule id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The schedule is deleted */
      204: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listScheduleEvents: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path: {
        /** @description The schedule id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['TenantEventPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listScheduleFirings: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path: {
        /** @description The schedule id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ScheduleFiringPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  pauseSchedule: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The schedule id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Schedule']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  resumeSchedule: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The schedule id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Schedule']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  triggerSchedule: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The schedule id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The firing */
      201: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ScheduleFiring']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listThreads: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
        /** @description `idle`: no active run; `busy`: a run is queued or running; `waiting`: it waits */
        status?: 'idle' | 'busy' | 'waiting'
        /**
         * @description A JSON object: only threads whose metadata contains it
         * @example {"customer":"c_42"}
         */
        metadata?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ThreadPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  getThread: {
    parameters: {
      query?: never
      header?: never
      path: {
        /**
         * @description The thread key the caller chose
         * @example support:customer-42
         */
        key: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Thread']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  putThread: {
    parameters: {
      query?: never
      header?: never
      path: {
        /**
         * @description The thread key the caller chose
         * @example support:customer-42
         */
        key: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['PutThreadBody']
      }
    }
    responses: {
      /** @description The existing thread */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Thread']
        }
      }
      /** @description The thread was created */
      201: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['Thread']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  archiveThread: {
    parameters: {
      query?: never
      header?: never
      path: {
        /**
         * @description The thread key the caller chose
         * @example support:customer-42
         */
        key: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description The thread is archived */
      204: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listThreadEvents: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path: {
        /**
         * @description The thread key the caller chose
         * @example support:customer-42
         */
        key: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['TenantEventPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listThreadRuns: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path: {
        /**
         * @description The thread key the caller chose
         * @example support:customer-42
         */
        key: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ThreadRunPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  startThreadRun: {
    parameters: {
      query?: never
      header?: never
      path: {
        /**
         * @description The thread key the caller chose
         * @example support:customer-42
         */
        key: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['StartThreadRunBody']
      }
    }
    responses: {
      /** @description The run is queued (or held, `held: true`) */
      202: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['ThreadRun']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Conflicts with the resource's current state */
      409: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listWebhooks: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path?: never
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['WebhookPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  createWebhook: {
    parameters: {
      query?: never
      header?: never
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateWebhookBody']
      }
    }
    responses: {
      /** @description The webhook, with its signing secret shown this once */
      201: {
        headers: {
          /** @description The new webhook */
          Location?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['CreatedWebhook']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is too large */
      413: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unavailable; see Retry-After */
      503: {
        headers: {
          /** @description Seconds to wait before sending the request again, when the dependency is expected back */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  deleteWebhook: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Deleted */
      204: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  listWebhookDeliveries: {
    parameters: {
      query?: {
        /** @description Page size, 1–200 */
        limit?: number
        /** @description The `nextCursor` of the previous page */
        cursor?: string
      }
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody?: never
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['WebhookDeliveryPage']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  rotateWebhookSecret: {
    parameters: {
      query?: never
      header?: never
      path: {
        /** @description The resource id (a UUID) */
        id: string
      }
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['RotateWebhookSecretBody'] | null
      }
    }
    responses: {
      /** @description Default Response */
      200: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/json': components['schemas']['RotatedWebhookSecret']
        }
      }
      /** @description Invalid request: validation failed, or the body or URL is malformed */
      400: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          /** @description The RFC 6750 bearer challenge: `error="invalid_token"` with a description for a token that is refused, no error for a request without one */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The token lacks the required scope, or a rule forbids the caller */
      403: {
        headers: {
          /** @description Sent when a scope is missing: `error="insufficient_scope"` and the scope the operation needs */
          'WWW-Authenticate'?: string
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Not found */
      404: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is too large */
      413: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description The request body is not application/json */
      415: {
        headers: {
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description Rate limited; see Retry-After */
      429: {
        headers: {
          /** @description Seconds to wait before sending the request again */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
      /** @description A dependency is unavailable; see Retry-After */
      503: {
        headers: {
          /** @description Seconds to wait before sending the request again, when the dependency is expected back */
          'Retry-After'?: number
          'X-Request-Id': components['headers']['XRequestId']
          [name: string]: unknown
        }
        content: {
          'application/problem+json': components['schemas']['Problem']
        }
      }
    }
  }
  deliver_run_queued: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_queued']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_run_admitted: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_admitted']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_run_started: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_started']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_step_completed: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_step_completed']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_run_waiting: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_waiting']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_approval_requested: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_approval_requested']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_approval_decided: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_approval_decided']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_run_resumed: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_resumed']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_run_completed: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_completed']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_run_failed: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_failed']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_run_cancelled: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_run_cancelled']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_agent_message: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_agent_message']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_tool_requested: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_tool_requested']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_tool_decided: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_tool_decided']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_tool_completed: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_tool_completed']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_tool_denied: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_tool_denied']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_agent_stopped: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_agent_stopped']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_thread_created: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_thread_created']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_thread_updated: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_thread_updated']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_thread_archived: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_thread_archived']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_thread_run_queued: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_thread_run_queued']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_thread_run_interrupted: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_thread_run_interrupted']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_thread_run_rolled_back: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_thread_run_rolled_back']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_schedule_created: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_schedule_created']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_schedule_paused: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_schedule_paused']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_schedule_resumed: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_schedule_resumed']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_schedule_deleted: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_schedule_deleted']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_schedule_fired: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_schedule_fired']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
  deliver_schedule_skipped: {
    parameters: {
      query?: never
      header: {
        /** @description The delivery id, the same on every attempt: a receiver that saw it already drops the duplicate */
        'webhook-id': string
        /** @description When this attempt was signed, in Unix seconds; refuse one too far from now */
        'webhook-timestamp': string
        /** @description Standard Webhooks signatures, `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one per live secret, space-separated (two during a rotation grace): accept the delivery when any one verifies with a secret you hold */
        'webhook-signature': string
        /** @description Weave's webhook sender */
        'user-agent': 'Weave-Webhooks/1'
      }
      path?: never
      cookie?: never
    }
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPayload_schedule_skipped']
      }
    }
    responses: {
      /** @description Received: the delivery succeeded */
      '2XX': {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
      /** @description Any other answer, or none in time: the attempt failed and is retried */
      default: {
        headers: {
          [name: string]: unknown
        }
        content?: never
      }
    }
  }
}

/** Any JSON value. */
export type JsonValue =
  string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue }
