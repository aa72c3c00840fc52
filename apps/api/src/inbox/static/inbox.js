/* global document, window, sessionStorage, fetch, URLSearchParams, FormData, DOMParser, atob */
// The inbox's bearer-token pages. The token is kept in this tab's sessionStorage and sent only
// as an Authorization header to this origin; it never goes into a URL, the page or a cookie.
// Pages are rendered (and escaped) by the server: this file fetches them as fragments, swaps
// them in, polls for changes, and sends decisions to the JSON API with the materialHash shown.
'use strict'

const TOKEN_KEY = 'weave.inbox.token'
const POLL_MS = 5000
const REFUSALS = {
  'material-mismatch':
    'What this approval shows has changed since this page was loaded, so your decision was not recorded. Reload the page, check the request again, then decide.',
  'approval-settled': 'This approval is already settled; nothing is left to decide.',
  'approval-expired': 'This approval expired before a decision was recorded.',
  'already-decided': 'You have already decided this approval.',
  'separation-of-duties': 'The person who started the run cannot decide its approvals.',
  'not-an-approver': 'You are not one of this approval’s approvers.',
}

const $ = (id) => document.getElementById(id)
const pageKind = document.body.dataset.page

function token() {
  return sessionStorage.getItem(TOKEN_KEY)
}

function subjectOf(jwt) {
  try {
    const part = jwt.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')
    const claims = JSON.parse(atob(part))
    return typeof claims.sub === 'string' ? claims.sub : ''
  } catch {
    return ''
  }
}

function authorization() {
  return { authorization: 'Bearer ' + token() }
}

function showSignIn(message) {
  $('sign-in').hidden = false
  $('session').hidden = true
  $('sign-in-problem').textContent = message || ''
  for (const id of ['inbox', 'back', 'approval']) if ($(id)) $(id).hidden = true
}

function showSignedIn() {
  $('sign-in').hidden = true
  $('session').hidden = false
  $('session-subject').textContent = subjectOf(token()) || 'an unnamed subject'
  for (const id of ['inbox', 'back', 'approval']) if ($(id)) $(id).hidden = false
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN_KEY)
  showSignIn(message)
  $('token').focus()
}

async function problemOf(response) {
  try {
    return await response.json()
  } catch {
    return { title: 'HTTP ' + response.status, detail: '' }
  }
}

/** A server-rendered fragment, or null when the token was refused (the sign-in form is shown). */
async function fragment(path) {
  const response = await fetch(path, {
    headers: { ...authorization(), accept: 'text/html' },
    cache: 'no-store',
    credentials: 'omit',
  })
  if (response.status === 401) {
    signOut('The token was refused (expired, or not valid here). Paste a new one.')
    return null
  }
  if (!response.ok) {
    const problem = await problemOf(response)
    throw new Error(problem.detail || problem.title)
  }
  return response.text()
}

function swap(container, text) {
  const parsed = new DOMParser().parseFromString(text, 'text/html')
  container.replaceChildren(...parsed.body.childNodes)
  container.setAttribute('aria-busy', 'false')
}

function say(text, isRefusal) {
  const live = $('live')
  live.textContent = text
  live.classList.toggle('refused', Boolean(isRefusal))
}

// The list of pending approvals.
let shownList
async function refreshList(isFirst) {
  const query = new URLSearchParams(window.location.search)
  const text = await fragment('/inbox/fragments/pending?' + query.toString())
  if (text === null || text === shownList) return
  swap($('list'), text)
  shownList = text
  if (!isFirst) {
    const count = $('list').querySelector('[data-count]')?.dataset.count ?? '0'
    say('The list was updated: ' + count + ' pending.')
  }
}

function startList() {
  $('filters').addEventListener('submit', (event) => {
    event.preventDefault()
    const query = new URLSearchParams()
    for (const [name, value] of new FormData($('filters'))) {
      if (typeof value === 'string' && value.trim() !== '') query.set(name, value.trim())
    }
    window.history.replaceState(null, '', '/inbox' + (query.size > 0 ? '?' + query : ''))
    shownList = undefined
    refreshList(true).catch((err) => say(err.message, true))
  })
  return () => refreshList(false)
}

// One approval.
const approvalId = decodeURIComponent(window.location.pathname.split('/').pop() || '')
let shownApproval
let isEditing = false

async function refreshApproval(isFirst) {
  const text = await fragment('/inbox/fragments/approvals/' + encodeURIComponent(approvalId))
  if (text === null || text === shownApproval) return
  if (!isFirst && isEditing) {
    say(
      'This approval changed while you were deciding. Reload to see it: a decision on what you see now would be refused.',
    )
    return
  }
  swap($('approval'), text)
  shownApproval = text
  if (!isFirst) say('This approval was updated.')
}

/** The edited arguments of an edit form, typed by each field's kind. */
function editedArguments(form) {
  const args = {}
  for (const field of form.querySelectorAll('[name^="arg."]')) {
    const name = field.name.slice(4)
    const kind = field.dataset.kind
    if (kind === 'boolean') {
      args[name] = field.checked
      continue
    }
    const value = field.value
    if (value.trim() === '') {
      if (kind === 'string' && field.required) args[name] = value
      continue
    }
    if (kind === 'string') args[name] = value
    else if (kind === 'number' || kind === 'integer') args[name] = Number(value)
    else {
      try {
        args[name] = JSON.parse(value)
      } catch {
        throw new Error(name + ' must be JSON')
      }
    }
  }
  return args
}

async function decide(form, submitter) {
  const data = new FormData(form, submitter)
  const body = { decision: data.get('decision'), materialHash: data.get('materialHash') }
  const comment = data.get('comment')
  if (typeof comment === 'string' && comment.trim() !== '') body.comment = comment
  if (body.decision === 'approve-edited') {
    body.decision = 'approve'
    body.input = { arguments: editedArguments(form) }
  }
  const response = await fetch('/v1/approvals/' + encodeURIComponent(approvalId) + '/decision', {
    method: 'POST',
    headers: { ...authorization(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
    credentials: 'omit',
  })
  if (response.status === 401) return signOut('The token was refused; sign in again.')
  if (!response.ok) {
    const problem = await problemOf(response)
    const name = (problem.type || '').split('/').pop()
    const details = (problem.errors || []).map((e) => e.path + ' ' + e.message).join('; ')
    say(
      'Not recorded. ' +
        (REFUSALS[name] || problem.detail || problem.title) +
        (details ? ' ' + details : ''),
      true,
    )
    $('live').focus()
    return
  }
  const view = await response.json()
  isEditing = false
  shownApproval = undefined
  await refreshApproval(true)
  say(
    view.status === 'pending'
      ? 'Your decision is recorded; the approval needs more approvals.'
      : 'Your decision is recorded: the approval is ' + view.status + ' and the run continues.',
  )
  $('live').focus()
}

function startApproval() {
  const container = $('approval')
  container.addEventListener('input', () => (isEditing = true))
  container.addEventListener('submit', (event) => {
    event.preventDefault()
    const form = event.target
    const buttons = form.querySelectorAll('button')
    buttons.forEach((b) => (b.disabled = true))
    decide(form, event.submitter)
      .catch((err) => {
        say('Not recorded. ' + err.message, true)
        $('live').focus()
      })
      .finally(() => buttons.forEach((b) => (b.disabled = false)))
  })
  return () => refreshApproval(false)
}

function start() {
  const poll = pageKind === 'list' ? startList() : startApproval()
  const load = () => {
    if (!token()) return showSignIn()
    showSignedIn()
    const first = pageKind === 'list' ? refreshList(true) : refreshApproval(true)
    first.catch((err) => say(err.message, true))
  }
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault()
    const value = $('token').value.trim()
    $('token').value = ''
    if (value === '') return
    sessionStorage.setItem(TOKEN_KEY, value)
    load()
    $('main').focus()
  })
  $('sign-out').addEventListener('click', () => signOut(''))
  window.setInterval(() => {
    if (document.visibilityState !== 'visible' || !token()) return
    poll().catch((err) => say(err.message, true))
  }, POLL_MS)
  load()
}

start()
