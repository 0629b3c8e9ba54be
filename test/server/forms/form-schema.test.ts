import t from 'tap'
import { Type } from 'typebox'
import { ANSWERS_DO_NOT_FIT, FormSchema, UNEXPECTED_FIELDS } from '../../../src/server/forms/form-schema.js'

const NONE = new Set<string>()
const Survey = Type.Object({
  name: Type.String({ minLength: 1 }),
  count: Type.Optional(Type.Integer({ minimum: 1 })),
  ratio: Type.Optional(Type.Number()),
  subscribe: Type.Optional(Type.Boolean()),
  tags: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  secret: Type.Optional(Type.String({ writeOnly: true }))
}, { additionalProperties: false })
const survey = new FormSchema(Survey)

t.test('a form\'s text is read as a person meant it', async (t) => {
  const read = survey.read({ name: 'Ada', count: ' 12 ', ratio: '-0.5e1', subscribe: 'on', tags: 'a' }, { fromForm: true, ignore: NONE })
  t.same(read, { ok: true, value: { name: 'Ada', count: 12, ratio: -5, subscribe: true, tags: ['a'] } })
  t.same(survey.read({ name: 'Ada', subscribe: 'false' }, { fromForm: true, ignore: NONE }), { ok: true, value: { name: 'Ada', subscribe: false } })
  t.same(survey.read({ name: 'Ada', subscribe: 'off' }, { fromForm: true, ignore: NONE }), { ok: true, value: { name: 'Ada', subscribe: false } })
  t.same(survey.read({ name: 'Ada', ratio: '.5', subscribe: 'true' }, { fromForm: true, ignore: NONE }), { ok: true, value: { name: 'Ada', ratio: 0.5, subscribe: true } }, 'a number from its point, a box that sends "true"')
  t.same(survey.read({ name: 'Ada', count: '', tags: ['a', 'b'] }, { fromForm: true, ignore: NONE }), { ok: true, value: { name: 'Ada', tags: ['a', 'b'] } }, 'an empty box is no answer')
  t.same(survey.read({ name: ' \t ', secret: '   ' }, { fromForm: true, ignore: NONE }), { ok: false, errors: { name: 'This field is required.' } }, 'nor is one of spaces alone')
  t.same(survey.read({ name: 'Ada', secret: '   ' }, { fromForm: true, ignore: NONE }), { ok: true, value: { name: 'Ada', secret: '   ' } }, 'but a secret\'s spaces are kept')
})

t.test('a list, a union or an enum of numbers or booleans reads each answer as the schema says', async (t) => {
  const Picks = new FormSchema(Type.Object({
    ids: Type.Optional(Type.Array(Type.Integer())),
    flags: Type.Optional(Type.Array(Type.Boolean())),
    size: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)])),
    level: Type.Optional(Type.Enum([1, 2, 'max'])),
    limit: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    label: Type.Optional(Type.Union([Type.String(), Type.Integer()]))
  }))
  const read = (answers: Record<string, string | string[]>) => Picks.read(answers, { fromForm: true, ignore: NONE })
  t.same(read({ ids: ['1', '22'], flags: ['on'], size: '2', level: '1', limit: '7', label: '5' }),
    { ok: true, value: { ids: [1, 22], flags: [true], size: 2, level: 1, limit: 7, label: '5' } }, 'a union\'s first member that takes the answer wins')
  t.same(read({ ids: '3', level: 'max' }), { ok: true, value: { ids: [3], level: 'max' } }, 'one box ticked is a list of one')
  t.equal(read({ ids: ['1', 'x'] }).ok, false, 'an item that is no number is still refused')
  t.equal(read({ size: '3' }).ok, false, 'and a number the union does not take')
})

t.test('text that is not what the field takes stays text, and is refused in words', async (t) => {
  for (const count of ['0x10', 'Infinity', '1,5', '12abc', '.']) {
    t.same(survey.read({ name: 'Ada', count }, { fromForm: true, ignore: NONE }), { ok: false, errors: { count: 'Enter a whole number.' } }, count)
  }
  t.same(survey.read({ name: 'Ada', count: '1.5' }, { fromForm: true, ignore: NONE }), { ok: false, errors: { count: 'Enter a whole number.' } })
  t.same(survey.read({ name: 'Ada', count: '0' }, { fromForm: true, ignore: NONE }), { ok: false, errors: { count: 'Enter a number of at least 1.' } })
  t.same(survey.read({ name: 'Ada', subscribe: 'yes' }, { fromForm: true, ignore: NONE }), { ok: false, errors: { subscribe: 'Choose yes or no.' } })
  t.same(survey.read({ name: 'Ada', tags: ['a', 'b', 'c'] }, { fromForm: true, ignore: NONE }), { ok: false, errors: { tags: 'Choose no more than 2.' } })
})

t.test('JSON is taken as sent: no reading of text, an empty string is an answer', async (t) => {
  t.same(survey.read({ name: 'Ada', count: 3 }, { fromForm: false, ignore: NONE }), { ok: true, value: { name: 'Ada', count: 3 } })
  t.same(survey.read({ name: 'Ada', count: '3' }, { fromForm: false, ignore: NONE }), { ok: false, errors: { count: 'Enter a whole number.' } })
  t.same(survey.read({ name: '' }, { fromForm: false, ignore: NONE }), { ok: false, errors: { name: 'Enter at least 1 character.' } })
  t.same(survey.read({ name: ['Ada'] }, { fromForm: false, ignore: NONE }), { ok: false, errors: { name: 'Give one answer.' } }, 'a list is not coerced to its item')
})

t.test('every field wrong gets its own message, however many: TypeBox alone lists only the first few errors', async (t) => {
  const names = Array.from({ length: 20 }, (_, index) => `field${index}`)
  const wide = new FormSchema(Type.Object(Object.fromEntries(names.map((name) => [name, Type.Union([Type.Literal('a'), Type.Literal('b')])]))))
  const read = wide.read(Object.fromEntries(names.map((name) => [name, 'c'])), { fromForm: true, ignore: NONE })
  t.same(read, { ok: false, errors: Object.fromEntries(names.map((name) => [name, 'Choose one of the options.'])) })
})

t.test('fields in `ignore` (the honeypot\'s) are not answers; other unknown fields are refused as a whole', async (t) => {
  const ignore = new Set(['name__confirm'])
  t.same(survey.read({ name: 'Ada', name__confirm: '' }, { fromForm: true, ignore }), { ok: true, value: { name: 'Ada' } })
  t.same(survey.read({ name: 'Ada', admin: 'true' }, { fromForm: true, ignore }), { ok: false, errors: {}, message: UNEXPECTED_FIELDS, unexpected: ['admin'] }, 'named, for the log')
  // As a form parser hands it over: an own field named __proto__, which must not become the answers' prototype.
  const poisoned = Object.assign(Object.create(null), { name: 'Ada' })
  Object.defineProperty(poisoned, '__proto__', { value: ['a', 'b'], enumerable: true })
  t.same(survey.read(poisoned, { fromForm: true, ignore }), { ok: false, errors: {}, message: UNEXPECTED_FIELDS, unexpected: ['__proto__'] })
  t.same(survey.read({ name: 'Ada', extra: '' }, { fromForm: true, ignore }), { ok: true, value: { name: 'Ada' } }, 'an empty box of a form is no answer, whatever its name')
  const emptyProto = Object.assign(Object.create(null), { name: 'Ada' })
  Object.defineProperty(emptyProto, '__proto__', { value: '', enumerable: true })
  t.same(survey.read(emptyProto, { fromForm: true, ignore }), { ok: true, value: { name: 'Ada' } }, 'an empty one named __proto__ too, as the form fuzz test found')
  t.same(survey.read(emptyProto, { fromForm: false, ignore }), { ok: false, errors: {}, message: UNEXPECTED_FIELDS, unexpected: ['__proto__'] }, 'but in JSON an empty string is an answer, and that name is refused')
})

t.test('unknown fields are named however many there are, and beside wrong fields; a form open to them names none', async (t) => {
  const extra = Object.fromEntries(Array.from({ length: 10 }, (_, index) => [`q${index}`, 'x']))
  t.same(survey.read({ name: 'Ada', ...extra }, { fromForm: true, ignore: NONE }), { ok: false, errors: {}, message: UNEXPECTED_FIELDS, unexpected: Object.keys(extra) }, 'not "do not fit": TypeBox lists only the first few errors, and not its own for these')
  t.same(survey.read({ name: '', tag: 'x' }, { fromForm: true, ignore: NONE }), { ok: false, errors: { name: 'This field is required.' }, unexpected: ['tag'] })
  const open = new FormSchema(Type.Object({ note: Type.String() }), { acceptUnknownFields: 'a survey whose questions change' })
  t.same(open.read({ q7: 'x' }, { fromForm: true, ignore: NONE }), { ok: false, errors: { note: 'This field is required.' } })
})

t.test('a rule over several fields, which no single field breaks, is said of the form', async (t) => {
  const both = new FormSchema(Type.Object({ from: Type.Optional(Type.String()), to: Type.Optional(Type.String()) }, { dependentRequired: { from: ['to'] } }))
  t.same(both.read({ from: 'a' }, { fromForm: true, ignore: NONE }), { ok: false, errors: {}, message: ANSWERS_DO_NOT_FIT })
  t.same(both.read({ from: 'a', to: 'b' }, { fromForm: true, ignore: NONE }).ok, true)
})

t.test('what is kept to fill the form again: its fields as text, never a writeOnly one, nothing else', async (t) => {
  t.same(survey.keep({ name: 'Ada', count: 3, subscribe: true, tags: ['a', 1, { x: 1 }], secret: 'hunter2', other: 'x', ratio: { nested: true } }), { name: 'Ada', count: '3', subscribe: 'true', tags: ['a', '1'] })
  t.same([...survey.sensitive], ['secret'])
  t.same(survey.keep(Object.create({ name: 'inherited' })), {}, 'own fields only')
  t.same(survey.keep({ name: [['Ada']], tags: ['a', ['b'], []], ratio: [] }), { tags: ['a'] }, 'lists one level deep, as a form sends them; deeper is no answer')
})

t.test('a form schema is an object of fields', async (t) => {
  t.throws(() => new FormSchema(Type.String() as never), /must be a Type\.Object/)
})
