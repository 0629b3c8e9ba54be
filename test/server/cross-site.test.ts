import t from 'tap'
import { isCrossSiteRequest } from '../../src/server/http/cross-site.js'

const HOST = 'agent-stack.example'
const SITE = { protocol: 'https', host: HOST }

t.test('requests from this origin, and clients that send neither header, are not cross-site', async (t) => {
  t.equal(isCrossSiteRequest({}, SITE), false, 'no Origin, no Sec-Fetch-Site (curl, older browsers)')
  t.equal(isCrossSiteRequest({ origin: 'https://agent-stack.example' }, SITE), false)
  t.equal(isCrossSiteRequest({ origin: 'https://agent-stack.example' }, { protocol: 'https', host: 'agent-stack.example:443' }), false, 'a default port in Host')
  t.equal(isCrossSiteRequest({ origin: 'http://agent-stack.example' }, { protocol: 'http', host: 'agent-stack.example:80' }), false, 'a default port in Host, over http')
  t.equal(isCrossSiteRequest({ origin: 'http://127.0.0.1:3000' }, { protocol: 'http', host: '127.0.0.1:3000' }), false)
  t.equal(isCrossSiteRequest({ origin: 'https://Agent-Stack.example' }, { protocol: 'HTTPS', host: 'AGENT-STACK.example' }), false, 'schemes and host names are case-insensitive')
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'same-origin', origin: 'https://agent-stack.example' }, SITE), false)
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'none' }, SITE), false, 'typed or bookmarked')
})

t.test('another site is cross-site, whichever header says so', async (t) => {
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'cross-site' }, SITE), true)
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'Cross-Site' }, SITE), true)
  t.equal(isCrossSiteRequest({ origin: 'https://evil.example' }, SITE), true)
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'same-origin', origin: 'https://evil.example' }, SITE), true, 'either header is enough')
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': 'cross-site', origin: 'https://agent-stack.example' }, SITE), true)
})

t.test('the scheme is compared: the http page of an https site is another origin, and the reverse', async (t) => {
  t.equal(isCrossSiteRequest({ origin: 'http://agent-stack.example' }, SITE), true, 'http origin, https request')
  t.equal(isCrossSiteRequest({ origin: 'https://agent-stack.example' }, { protocol: 'http', host: HOST }), true, 'https origin, http request')
  t.equal(isCrossSiteRequest({ origin: 'http://agent-stack.example:443' }, { protocol: 'https', host: 'agent-stack.example:443' }), true, 'http on the https port')
  t.equal(isCrossSiteRequest({ origin: 'https://agent-stack.example:80' }, { protocol: 'http', host: 'agent-stack.example:80' }), true, 'https on the http port')
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
    t.equal(isCrossSiteRequest({ origin }, SITE), true, origin)
  }
  t.equal(isCrossSiteRequest({ origin: ['https://agent-stack.example', 'https://evil.example'] }, SITE), true, 'a repeated Origin header')
  t.equal(isCrossSiteRequest({ 'sec-fetch-site': ['same-origin', 'cross-site'] }, SITE), true, 'a repeated Sec-Fetch-Site header')
})
