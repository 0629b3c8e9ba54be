import t from 'tap'
import type { IncomingMessage } from 'node:http'
import { createGenReqId, idSequence, requestIdOf, traceIdOf, trustedProxyPredicate } from '../../src/server/http/request-id.js'

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const VALID = `00-${TRACE_ID}-00f067aa0ba902b7-01`

t.test('a valid traceparent gives its trace id', async (t) => {
  t.equal(traceIdOf(VALID), TRACE_ID)
  t.equal(traceIdOf(`00-${TRACE_ID}-00f067aa0ba902b7-00`), TRACE_ID, 'sampled or not')
  t.equal(traceIdOf(`cc-${TRACE_ID}-00f067aa0ba902b7-01-what-the-future-adds`), TRACE_ID, 'a later version may append fields')
  t.equal(traceIdOf(`cc-${TRACE_ID}-00f067aa0ba902b7-01`), TRACE_ID)
})

t.test('a malformed traceparent is ignored, never an error', async (t) => {
  const malformed = [
    undefined, 42, ['x'], '',
    VALID.toUpperCase(), // hex is lower-case only
    `ff-${TRACE_ID}-00f067aa0ba902b7-01`, // version ff is forbidden
    `00-${TRACE_ID}-00f067aa0ba902b7-01-extra`, // version 00 has exactly four fields
    `00-${TRACE_ID}-00f067aa0ba902b7-01-`,
    `cc-${TRACE_ID}-00f067aa0ba902b7-01x`, // after the flags, only a dash may follow
    `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`, // all-zero trace id
    `00-${TRACE_ID}-${'0'.repeat(16)}-01`, // all-zero parent id
    `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID}-00f067aa0ba902b-01`,
    `0-${TRACE_ID}-00f067aa0ba902b7-01`,
    `00-${TRACE_ID}-00f067aa0ba902b7-1`,
    `00_${TRACE_ID}_00f067aa0ba902b7_01`,
    ` ${VALID}`, `${VALID}\n`,
    `00-${TRACE_ID.replace('4', 'g')}-00f067aa0ba902b7-01`
  ]
  for (const value of malformed) t.equal(traceIdOf(value), undefined, JSON.stringify(value))
})

t.test('an X-Request-Id is kept only when it is 1 to 128 word characters, dots or dashes', async (t) => {
  t.equal(requestIdOf('lb-7f3a.42_x'), 'lb-7f3a.42_x')
  t.equal(requestIdOf('x'.repeat(128)), 'x'.repeat(128))
  for (const value of [undefined, '', 'x'.repeat(129), 'has spaces', 'a;b', 'line\nbreak', 'é', ['a', 'b']]) {
    t.equal(requestIdOf(value), undefined, JSON.stringify(value))
  }
})

t.test('trusted proxies follow Fastify\'s trustProxy forms, for the nearest hop', async (t) => {
  t.notOk(trustedProxyPredicate()('127.0.0.1'), 'nobody by default')
  t.notOk(trustedProxyPredicate(false)('127.0.0.1'))
  t.ok(trustedProxyPredicate(true)('203.0.113.9'), 'true trusts every peer')
  t.ok(trustedProxyPredicate(1)('203.0.113.9'), 'a hop count of one or more trusts the nearest peer')
  t.notOk(trustedProxyPredicate(0)('203.0.113.9'))
  const loopback = trustedProxyPredicate('loopback')
  t.ok(loopback('127.0.0.1'))
  t.ok(loopback('::1'))
  t.ok(loopback('::ffff:127.0.0.1'), 'an IPv4-mapped address is read as IPv4')
  t.notOk(loopback('10.0.0.1'))
  const listed = trustedProxyPredicate('10.0.0.0/8, 192.168.1.7')
  t.ok(listed('10.1.2.3'))
  t.ok(listed('192.168.1.7'))
  t.notOk(listed('192.168.1.8'))
  t.ok(trustedProxyPredicate(['10.0.0.0/8', 'loopback'])('127.0.0.1'), 'an array of addresses and names')
  t.throws(() => trustedProxyPredicate('not-an-address'), 'a value proxy-addr cannot read is refused at start-up')
})

function incoming (headers: Record<string, string | string[]>, remoteAddress: string | null = '10.0.0.2'): IncomingMessage {
  return { headers, socket: { remoteAddress: remoteAddress ?? undefined } } as unknown as IncomingMessage
}

t.test('genReqId: an id that arrives is taken from a trusted proxy only, the trace id first', async (t) => {
  const asked: string[] = []
  const genReqId = createGenReqId((address) => { asked.push(address); return address === '10.0.0.2' }, idSequence('fresh'))
  t.equal(genReqId(incoming({ traceparent: VALID, 'x-request-id': 'lb-1' })), TRACE_ID, 'the trace id, so logs join the trace')
  t.equal(genReqId(incoming({ 'x-request-id': 'lb-1' })), 'lb-1', 'else the proxy\'s request id')
  t.equal(genReqId(incoming({ traceparent: 'garbage', 'x-request-id': 'lb-2' })), 'lb-2', 'a malformed traceparent is passed over')
  t.equal(genReqId(incoming({ traceparent: 'garbage', 'x-request-id': 'has spaces' })), 'fresh-1', 'nothing usable: a fresh id')
  t.equal(genReqId(incoming({ traceparent: VALID }, '203.0.113.9')), 'fresh-2', 'from anyone else the trace id is ignored')
  t.equal(genReqId(incoming({ 'x-request-id': 'forged' }, '203.0.113.9')), 'fresh-3', 'and so is the request id')
  t.equal(genReqId(incoming({ 'x-request-id': 'forged' }, null)), 'fresh-4', 'a socket without an address is nobody we trust')
  const before = asked.length
  t.equal(genReqId(incoming({})), 'fresh-5')
  t.equal(asked.length, before, 'a request that brings no id costs no trust check')
})

t.test('fresh ids carry a random prefix per sequence and count up', async (t) => {
  const one = idSequence()
  const other = idSequence()
  const [a, b] = [one(), one()]
  t.match(a, /^[\w-]{8}-1$/)
  t.match(b, /^[\w-]{8}-2$/)
  t.not(a.slice(0, 8), other().slice(0, 8), 'two processes do not share a prefix')
})
