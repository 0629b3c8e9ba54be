import type { Static, TObject, TSchema } from 'typebox'
import { Compile, type Validator } from 'typebox/compile'
import { Value } from 'typebox/value'
import type { FieldErrors, FormValues } from '../../shared/form-state.js'
import { fieldMessage, type FieldSchema, type Issue } from './field-messages.js'

// Each field is also checked on its own: TypeBox stops listing errors after a few, and a form wants one per field.

export type FormRead<T> = { ok: true, value: T } | { ok: false, errors: FieldErrors, message?: string, unexpected?: string[] }

export const UNEXPECTED_FIELDS = 'This form sent answers it does not expect. Please reload the page and try again.'
export const ANSWERS_DO_NOT_FIT = 'These answers do not fit together. Please check them and try again.'

interface Field {
  name: string
  schema: TSchema & FieldSchema
  required: boolean
  check: Validator
}

/** A decimal number as people type it; `Number()` alone would also take `0x10`, `Infinity` and the empty string. */
const DECIMAL = /^\s*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?\s*$/
const TRUE = new Set(['on', 'true'])
const FALSE = new Set(['off', 'false'])
/** Names that mean something to every object: refused unless a form names them as fields. */
const OBJECT_NAMES = new Set(['__proto__', 'constructor', 'prototype'])

export interface FormSchemaOptions {
  acceptUnknownFields?: string
}

export class FormSchema<S extends TObject> {
  readonly schema: S
  /** Fields marked `writeOnly` (a password): never echoed back. */
  readonly sensitive: ReadonlySet<string>
  readonly #fields: Map<string, Field>
  readonly #check: Validator<{}, S>
  readonly #closed: boolean

  constructor (schema: S, { acceptUnknownFields }: FormSchemaOptions = {}) {
    if ((schema as { type?: unknown }).type !== 'object' || typeof schema.properties !== 'object') {
      throw new TypeError('defineFormRoute: `schema` must be a Type.Object of the form\'s fields.')
    }
    const declared = (schema as { additionalProperties?: unknown }).additionalProperties
    const open = declared !== undefined && declared !== false
    if (open && !acceptUnknownFields) {
      throw new TypeError('defineFormRoute: the schema takes fields it does not name (additionalProperties); give `acceptUnknownFields` the reason, or name every field.')
    }
    const required = new Set<string>((schema as { required?: string[] }).required ?? [])
    this.schema = schema
    this.#closed = !acceptUnknownFields
    // Closed unless the form says why not: a handler never meets a field nobody planned for.
    this.#check = Compile(acceptUnknownFields ? schema : { ...schema, additionalProperties: false } as S)
    this.#fields = new Map(Object.entries(schema.properties as Record<string, TSchema & FieldSchema>).map(([name, field]) => [name, {
      name,
      schema: field,
      required: required.has(name),
      check: Compile(field)
    }]))
    this.sensitive = new Set([...this.#fields.values()].filter(({ schema }) => (schema as { writeOnly?: unknown }).writeOnly === true).map(({ name }) => name))
  }

  // A URL-encoded form sends only text: `fromForm` reads it as a person meant it (an empty box as no answer, `on` as true).
  read (body: Record<string, unknown>, { fromForm, ignore }: { fromForm: boolean, ignore: ReadonlySet<string> }): FormRead<Static<S>> {
    // No prototype: `__proto__` and `constructor` are plain names here, and nothing is inherited.
    const candidate: Record<string, unknown> = Object.create(null)
    for (const name of Object.keys(body)) {
      if (ignore.has(name)) continue
      const value = fromForm ? this.#fromForm(name, body[name]) : body[name]
      // An empty box of a form is no answer, whatever its name, this one's too.
      if (value === undefined) continue
      if (OBJECT_NAMES.has(name) && !this.#fields.has(name)) return { ok: false, errors: {}, message: UNEXPECTED_FIELDS, unexpected: [name] }
      candidate[name] = value
    }
    if (this.#check.Check(candidate)) return { ok: true, value: candidate as Static<S> }

    const errors: FieldErrors = {}
    for (const field of this.#fields.values()) {
      const message = this.#fieldError(field, candidate)
      if (message !== undefined) errors[field.name] = message
    }
    // Read off the answers, not TypeBox's errors (which stop after a few): a forgotten `<Field>` logs on the first refusal.
    const unexpected = this.#closed ? Object.keys(candidate).filter((name) => !this.#fields.has(name)) : []
    const named = unexpected.length > 0 ? { unexpected } : {}
    if (Object.keys(errors).length > 0) return { ok: false, errors, ...named }
    return { ok: false, errors, message: unexpected.length > 0 ? UNEXPECTED_FIELDS : ANSWERS_DO_NOT_FIT, ...named }
  }

  keep (body: Record<string, unknown>): FormValues {
    const values: FormValues = {}
    for (const name of this.#fields.keys()) {
      if (this.sensitive.has(name) || !Object.hasOwn(body, name)) continue
      const value = asText(body[name])
      if (value !== undefined) values[name] = value
    }
    return values
  }

  #fieldError (field: Field, candidate: Record<string, unknown>): string | undefined {
    if (!Object.hasOwn(candidate, field.name)) return field.required ? fieldMessage(field.schema, { keyword: 'required' }) : undefined
    const value = candidate[field.name]
    if (field.check.Check(value)) return undefined
    const [first] = field.check.Errors(value) as Issue[]
    return fieldMessage(field.schema, first ?? { keyword: 'type' })
  }

  #fromForm (name: string, value: unknown): unknown {
    // A box of spaces is as empty to a person as a blank one; a password's spaces are the visitor's own.
    if (value === '' || (typeof value === 'string' && value.trim() === '' && !this.sensitive.has(name))) return undefined
    const schema = this.#fields.get(name)?.schema
    return schema ? fromFormText(schema, value) : value
  }
}

type Shape = TSchema & { type?: unknown, items?: TSchema, anyOf?: TSchema[], enum?: unknown[] }

// Led by the schema, so a hostile body's nesting is never walked further than the schema goes.
function fromFormText (schema: Shape, value: unknown): unknown {
  if (Array.isArray(value)) return schema.type === 'array' && schema.items ? value.map((item) => fromFormText(schema.items!, item)) : value
  if (typeof value !== 'string') return value
  if (schema.type === 'array') return [schema.items ? fromFormText(schema.items, value) : value]
  if (schema.anyOf) {
    for (const member of schema.anyOf) {
      const read = fromFormText(member, value)
      if (Value.Check(member, read)) return read
    }
    return value
  }
  // A string member read back is the text itself; a number's or a boolean's is the value the form meant.
  if (schema.enum) return schema.enum.find((member) => String(member) === value) ?? value
  if ((schema.type === 'number' || schema.type === 'integer') && DECIMAL.test(value)) return Number(value)
  if (schema.type === 'boolean' && TRUE.has(value)) return true
  if (schema.type === 'boolean' && FALSE.has(value)) return false
  return value
}

// One level deep, never walked further: recursing into a JSON body's nesting overflowed the stack (a 500).
function asText (value: unknown): string | string[] | undefined {
  if (!Array.isArray(value)) return scalarText(value)
  const texts = value.map(scalarText).filter((text) => text !== undefined)
  return texts.length > 0 ? texts : undefined
}

function scalarText (value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}
