import t from 'tap'
import { isCrossSiteRequest } from '../../src/server/cross-site.js'

const HOST = 'agent-stack.example'

t.test('requests from this origin, and clients that send neither header, are not cross-site', async (t) => {
  t.equal(isCrossSiteRequest({}, HOST), false, 'no Origin, no Sec-Fetch-Site (curl, older browsers)')
  t.equal(isCrossSiteRequest({ origin: 'https://agent-stack.example' }, HOST), false)
  t.equal(isCrossSiteRequest({ origin: 'http://agent-stack.example' }, HOST), false, 'the scheme is not compared: a TLS proxy may hide it')
  t.equal(isCrossSiteRequest({ origin: 'https://agent-stack.example' }, 'agent-stack.example:443'), false, 'a default port in Host')
  t.equal(isCrossSiteRequest({ origin: 'http://127.0.0.1:3000' }, '127.0.0.1:3000'), false)
  t.equal(isCrossSiteRequest({ origin: 'https://Agent-Stack.example' }, 'AGENT-STACK.example'), false, 'host names are case-insensitive')
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'same-origin', origin: 'https://agent-stack.example' }, HOST), false)
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'none' }, HOST), false, 'typed or bookmarked')
})

t.test('another site is cross-site, whichever header says so', async (t) => {
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'cross-site' }, HOST), true)
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'Cross-Site' }, HOST), true)
  t.equal(isCrossSiteRequest({ origin: 'https://evil.example' }, HOST), true)
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }, HOST), true, 'either header is enough')
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'cross-site', origin: 'https://agent-stack.example' }, HOST), true)
})

t.test('origins that merely look like ours are refused', async (t) => {
  for (const origin of [
    'null',
    '',
    'https://agent-stack.example.evil.example',
    'https://evil.example?agent-stack.example',
    'https://agent-stack.example@evil.example',
    'https://sub.agent-stack.example',
    'https://agent-stack.example:8443',
    'https://agent-stack.example/path',
    'file://agent-stack.example',
    'javascript://agent-stack.example',
    'agent-stack.example'
  ]) {
    t.equal(isCrossSiteRequest({ origin }, HOST), true, origin)
  }
  t.equal(isCrossSiteRequest({ origin: ['https://agent-stack.example', 'https://evil.example'] }, HOST), true, 'a repeated Origin header')
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': ['same-origin', 'cross-site'] }, HOST), true, 'a repeated Sec-Fetch-Site header')
})
