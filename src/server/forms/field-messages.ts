// The field schema's `errorMessage` (one text, or one per keyword), else its `description`, else a plain
// instruction: a visitor never reads a validator's wording or a JSON path.

export interface Issue {
  keyword: string
  params?: object
}

export interface FieldSchema {
  type?: unknown
  format?: unknown
  description?: unknown
  errorMessage?: unknown
}

const FORMATS: Record<string, string> = {
  email: 'Enter an email address, like name@example.com.',
  'idn-email': 'Enter an email address, like name@example.com.',
  url: 'Enter a web address, like https://example.com.',
  uri: 'Enter a web address, like https://example.com.',
  date: 'Enter a date, like 2025-03-31.',
  time: 'Enter a time, like 14:30:00Z.',
  'date-time': 'Enter a date and time, like 2025-03-31T14:30:00Z.',
  uuid: 'Enter an identifier, like 3f2b6c1e-8a4d-4c1a-9d7e-2b5f0c6a1e9d.'
}

const TYPES: Record<string, string> = {
  number: 'Enter a number.',
  integer: 'Enter a whole number.',
  boolean: 'Choose yes or no.',
  string: 'Give one answer.',
  array: 'Choose from the options.'
}

const plural = (count: unknown, one: string, many: string) => `${String(count)} ${count === 1 ? one : many}`

function limitOf (issue: Issue): unknown {
  return (issue.params as { limit?: unknown } | undefined)?.limit
}

export function defaultMessage (issue: Issue, schema: FieldSchema = {}): string {
  const limit = limitOf(issue)
  switch (issue.keyword) {
    case 'required': return 'This field is required.'
    case 'minLength': return `Enter at least ${plural(limit, 'character', 'characters')}.`
    case 'maxLength': return `Enter no more than ${plural(limit, 'character', 'characters')}.`
    case 'format': return FORMATS[String((issue.params as { format?: unknown } | undefined)?.format)] ?? 'Enter a value in the format shown.'
    case 'pattern': return 'Enter a value in the format shown.'
    case 'minimum': return `Enter a number of at least ${String(limit)}.`
    case 'exclusiveMinimum': return `Enter a number greater than ${String(limit)}.`
    case 'maximum': return `Enter a number of no more than ${String(limit)}.`
    case 'exclusiveMaximum': return `Enter a number less than ${String(limit)}.`
    case 'multipleOf': return `Enter a multiple of ${String((issue.params as { multipleOf?: unknown } | undefined)?.multipleOf)}.`
    case 'const':
    case 'enum':
    case 'anyOf':
    case 'oneOf': return 'Choose one of the options.'
    case 'minItems': return `Choose at least ${String(limit)}.`
    case 'maxItems': return `Choose no more than ${String(limit)}.`
    case 'uniqueItems': return 'Choose each option only once.'
    case 'type': return TYPES[String(schema.type)] ?? 'This answer is not valid.'
    default: return 'This answer is not valid.'
  }
}

export function fieldMessage (schema: FieldSchema, issue: Issue): string {
  const { errorMessage, description } = schema
  if (typeof errorMessage === 'string' && errorMessage !== '') return errorMessage
  if (typeof errorMessage === 'object' && errorMessage !== null) {
    const forKeyword = (errorMessage as Record<string, unknown>)[issue.keyword]
    if (typeof forKeyword === 'string' && forKeyword !== '') return forKeyword
  }
  if (typeof description === 'string' && description !== '') return description
  return defaultMessage(issue, schema)
}
