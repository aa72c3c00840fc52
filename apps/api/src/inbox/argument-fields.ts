import type { Json } from '@weave/kernel'
import { html, type SafeHtml } from './html.js'

/** How a tool argument is edited, and read back from a form. */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'json'

/** One argument of a tool call as an edit form shows it. */
export interface ArgumentField {
  name: string
  kind: FieldKind
  isRequired: boolean
  description: string | undefined
  /** The choices of an `enum` field, as JSON texts (so numbers survive a form round trip). */
  choices: string[]
}

/** Form field names of arguments carry this prefix, so no argument collides with a control. */
export const ARGUMENT_PREFIX = 'arg.'

const isObject = (value: unknown): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The fields of an edit form, from the JSON Schema of a tool's arguments (`inputSchema`'s
 * `properties.arguments` of an agent's approval): one per declared property, plus one per
 * argument the call carries that the schema does not declare. Anything but a scalar is edited
 * as JSON text.
 */
export function argumentFields(
  schema: Json | null,
  current: Record<string, Json>,
): ArgumentField[] {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {}
  const required = new Set(
    isObject(schema) && Array.isArray(schema.required)
      ? schema.required.filter((r): r is string => typeof r === 'string')
      : [],
  )
  const names = [...new Set([...Object.keys(properties), ...Object.keys(current)])]
  return names.map((name) => {
    const property = properties[name]
    const spec = isObject(property) ? property : {}
    const description = typeof spec.description === 'string' ? spec.description : undefined
    const choices = Array.isArray(spec.enum) ? spec.enum.map((c) => JSON.stringify(c)) : []
    const kind: FieldKind =
      choices.length > 0
        ? 'enum'
        : spec.type === 'string' || spec.type === 'number' || spec.type === 'integer'
          ? spec.type
          : spec.type === 'boolean'
            ? 'boolean'
            : 'json'
    return { name, kind, isRequired: required.has(name), description, choices }
  })
}

/** The edit form's inputs, prefilled with the call's arguments. */
export function renderArgumentFields(
  fields: ArgumentField[],
  current: Record<string, Json>,
): SafeHtml {
  return html`${fields.map((field, index) => {
    const id = `arg-${index}`
    const value = Object.hasOwn(current, field.name) ? current[field.name] : undefined
    const name = `${ARGUMENT_PREFIX}${field.name}`
    const hint = field.description
      ? html`<span class="hint" id="${id}-hint">${field.description}</span>`
      : ''
    const described = field.description ? `${id}-hint` : undefined
    const label = html`<label for="${id}"
      >${field.name}${field.isRequired ? '' : html` <span class="optional">(optional)</span>`}</label
    >`
    const common = { id, name, described, kind: field.kind }
    if (field.kind === 'boolean') {
      return html`<div class="field field-check">
        <input
          type="checkbox"
          id="${id}"
          name="${name}"
          value="true"
          data-kind="boolean"
          ${value === true ? html` checked` : ''}${described ? html` aria-describedby="${described}"` : ''}
        />
        ${label}${hint}
      </div>`
    }
    if (field.kind === 'enum') {
      const selected = value === undefined ? undefined : JSON.stringify(value)
      return html`<div class="field">
        ${label}${hint}<select ${attributes(common)}>
          ${field.isRequired ? '' : html`<option value="">(none)</option>`}${field.choices.map((c) => html`<option value="${c}" ${c === selected ? html` selected` : ''}>${displayChoice(c)}</option>`)}
        </select>
      </div>`
    }
    if (field.kind === 'json') {
      const text = value === undefined ? '' : JSON.stringify(value, null, 2)
      return html`<div class="field">
        ${label}${hint}<textarea ${attributes(common)} rows="3" spellcheck="false">
${text}</textarea>
      </div>`
    }
    const type = field.kind === 'string' ? 'text' : 'number'
    const step = field.kind === 'number' ? html` step="any"` : ''
    const text =
      value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value)
    return html`<div class="field">
      ${label}${hint}<input
        type="${type}"
        ${step}
        ${attributes(common)}
        value="${text}"
        ${field.isRequired ? html` required` : ''}
      />
    </div>`
  })}`
}

function attributes(o: {
  id: string
  name: string
  described: string | undefined
  kind: FieldKind
}) {
  return html`id="${o.id}" name="${o.name}"
  data-kind="${o.kind}"${o.described ? html` aria-describedby="${o.described}"` : ''}`
}

function displayChoice(choice: string): string {
  const value: unknown = JSON.parse(choice)
  return typeof value === 'string' ? value : choice
}

/** Why an edit form's fields are not arguments: the field and what is wrong with it. */
export interface FieldProblem {
  path: string
  message: string
}

/**
 * The arguments an edit form's fields say, typed by each field's kind; an empty optional field
 * is left out. The tool's schema is checked afterwards, by the decision itself.
 */
export function argumentsFromForm(
  fields: ArgumentField[],
  form: Record<string, string>,
): { arguments: Record<string, Json> } | { problems: FieldProblem[] } {
  const args: Record<string, Json> = {}
  const problems: FieldProblem[] = []
  for (const field of fields) {
    const key = `${ARGUMENT_PREFIX}${field.name}`
    const raw = form[key]
    const path = `/arguments/${field.name}`
    if (field.kind === 'boolean') {
      args[field.name] = raw === 'true'
      continue
    }
    if (raw === undefined || raw.trim() === '') {
      if (field.kind === 'string' && raw !== undefined && field.isRequired) args[field.name] = raw
      continue
    }
    if (field.kind === 'string') args[field.name] = raw
    else if (field.kind === 'number' || field.kind === 'integer') {
      const value = Number(raw)
      if (!Number.isFinite(value)) problems.push({ path, message: 'must be a number' })
      else args[field.name] = value
    } else {
      try {
        args[field.name] = JSON.parse(raw) as Json
      } catch {
        problems.push({
          path,
          message: field.kind === 'enum' ? 'is not one of the choices' : 'must be JSON',
        })
      }
    }
  }
  return problems.length > 0 ? { problems } : { arguments: args }
}

/** What an approver's edit changed: each argument whose value differs, before and after. */
export function changedArguments(
  before: Record<string, Json>,
  after: Record<string, Json>,
): Array<{ name: string; before: Json | undefined; after: Json | undefined }> {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])]
  return names
    .filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]))
    .map((name) => ({ name, before: before[name], after: after[name] }))
}
