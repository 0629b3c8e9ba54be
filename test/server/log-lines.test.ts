import { Writable } from 'node:stream'
import pino from 'pino'
import t from 'tap'
import { escapeLineSeparators, LOG_HOOKS } from '../../src/server/observability/log-lines.js'

t.test('a log line escapes U+2028 and U+2029: one line for every reader, the same JSON', async (t) => {
  let written = ''
  const stream = new Writable({ write (chunk: Buffer, _encoding, done) { written += chunk.toString('utf8'); done() } })
  const logger = pino({ hooks: LOG_HOOKS }, stream)
  logger.warn({ csp: { sample: 'a\u2028b\u2029c' } }, 'CSP violation\u2028forged line')
  t.notMatch(written, /[\u2028\u2029]/, 'neither separator is written raw')
  t.match(written, '\\u2028')
  const line = JSON.parse(written)
  t.equal(line.csp.sample, 'a\u2028b\u2029c', 'and the text reads back as it was')
  t.equal(line.msg, 'CSP violation\u2028forged line')
  t.equal(escapeLineSeparators('{"a":"plain"}'), '{"a":"plain"}', 'other lines are untouched')
})
