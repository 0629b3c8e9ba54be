import t from 'tap'
import { defaultMessage, fieldMessage } from '../../../src/server/forms/field-messages.js'

t.test('each rule has a plain instruction, with its limit in words', async (t) => {
  const cases: Array<[Parameters<typeof defaultMessage>, string]> = [
    [[{ keyword: 'required' }], 'This field is required.'],
    [[{ keyword: 'minLength', params: { limit: 1 } }], 'Enter at least 1 character.'],
    [[{ keyword: 'minLength', params: { limit: 3 } }], 'Enter at least 3 characters.'],
    [[{ keyword: 'maxLength', params: { limit: 1 } }], 'Enter no more than 1 character.'],
    [[{ keyword: 'maxLength', params: { limit: 80 } }], 'Enter no more than 80 characters.'],
    [[{ keyword: 'format', params: { format: 'email' } }], 'Enter an email address, like name@example.com.'],
    [[{ keyword: 'format', params: { format: 'url' } }], 'Enter a web address, like https://example.com.'],
    [[{ keyword: 'format', params: { format: 'date' } }], 'Enter a date, like 2025-03-31.'],
    [[{ keyword: 'format', params: { format: 'ipv6' } }], 'Enter a value in the format shown.'],
    [[{ keyword: 'pattern', params: { pattern: '^[A-Z]{2}\\d+$' } }], 'Enter a value in the format shown.'],
    [[{ keyword: 'minimum', params: { limit: 18 } }], 'Enter a number of at least 18.'],
    [[{ keyword: 'exclusiveMinimum', params: { limit: 0 } }], 'Enter a number greater than 0.'],
    [[{ keyword: 'maximum', params: { limit: 130 } }], 'Enter a number of no more than 130.'],
    [[{ keyword: 'exclusiveMaximum', params: { limit: 1 } }], 'Enter a number less than 1.'],
    [[{ keyword: 'multipleOf', params: { multipleOf: 5 } }], 'Enter a multiple of 5.'],
    [[{ keyword: 'const' }], 'Choose one of the options.'],
    [[{ keyword: 'enum' }], 'Choose one of the options.'],
    [[{ keyword: 'anyOf' }], 'Choose one of the options.'],
    [[{ keyword: 'oneOf' }], 'Choose one of the options.'],
    [[{ keyword: 'minItems', params: { limit: 2 } }], 'Choose at least 2.'],
    [[{ keyword: 'maxItems', params: { limit: 3 } }], 'Choose no more than 3.'],
    [[{ keyword: 'uniqueItems' }], 'Choose each option only once.'],
    [[{ keyword: 'type' }, { type: 'number' }], 'Enter a number.'],
    [[{ keyword: 'type' }, { type: 'integer' }], 'Enter a whole number.'],
    [[{ keyword: 'type' }, { type: 'boolean' }], 'Choose yes or no.'],
    [[{ keyword: 'type' }, { type: 'string' }], 'Give one answer.'],
    [[{ keyword: 'type' }, { type: 'array' }], 'Choose from the options.'],
    [[{ keyword: 'type' }, { type: 'object' }], 'This answer is not valid.'],
    [[{ keyword: 'not' }], 'This answer is not valid.']
  ]
  for (const [args, message] of cases) t.equal(defaultMessage(...args), message, `${args[0].keyword}${args[1] ? ` (${String(args[1].type)})` : ''}`)
})

t.test('the schema\'s own words come first: errorMessage, then one per rule, then the description', async (t) => {
  const minLength = { keyword: 'minLength', params: { limit: 8 } }
  t.equal(fieldMessage({ errorMessage: 'Enter your name', description: 'Your full name' }, minLength), 'Enter your name')
  const perRule = { errorMessage: { required: 'Choose a password', minLength: 'Use at least 8 characters' }, description: 'A password of 8 characters or more' }
  t.equal(fieldMessage(perRule, { keyword: 'required' }), 'Choose a password')
  t.equal(fieldMessage(perRule, minLength), 'Use at least 8 characters')
  t.equal(fieldMessage(perRule, { keyword: 'maxLength', params: { limit: 200 } }), 'A password of 8 characters or more', 'a rule without its own words falls back to the description')
  t.equal(fieldMessage({ errorMessage: { required: 'Choose a password' } }, minLength), 'Enter at least 8 characters.', 'and then to the default')
  t.equal(fieldMessage({ errorMessage: '', description: '' }, minLength), 'Enter at least 8 characters.', 'empty words are no words')
  t.equal(fieldMessage({ errorMessage: 42 }, minLength), 'Enter at least 8 characters.', 'nor is anything but text')
})
