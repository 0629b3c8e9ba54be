import t from 'tap'
import {
  COLOR_SCHEME_COOKIE,
  FALLBACK_TIME_ZONE,
  TIME_ZONE_COOKIE,
  parseColorSchemeHeader,
  resolveHints,
  validTimeZone,
  MAX_KNOWN_TIME_ZONES,
  rememberedTimeZones
} from '../../src/shared/client-hints.js'

t.test('the cookie names and fallbacks are @epic-web/client-hints’ own', async (t) => {
  t.equal(COLOR_SCHEME_COOKIE, 'CH-prefers-color-scheme')
  t.equal(TIME_ZONE_COOKIE, 'CH-time-zone')
  t.equal(FALLBACK_TIME_ZONE, 'UTC')
})

t.test('the Sec-CH-Prefers-Color-Scheme header, quoted or bare', async (t) => {
  t.equal(parseColorSchemeHeader('"dark"'), 'dark')
  t.equal(parseColorSchemeHeader('"light"'), 'light')
  t.equal(parseColorSchemeHeader('dark'), 'dark')
  t.equal(parseColorSchemeHeader(' "dark" '), 'dark')
  for (const value of [undefined, '', '""', '"', 'Dark', '"no-preference"', '"dark', 'dark"', '"dark", "light"', ['"dark"'], 42]) {
    t.equal(parseColorSchemeHeader(value), null, JSON.stringify(value) ?? String(value))
  }
})

t.test('time zones Intl knows are kept as given', async (t) => {
  for (const zone of ['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Asia/Calcutta', 'US/Eastern', 'Etc/GMT+5', 'Etc/GMT-14']) {
    t.equal(validTimeZone(zone), zone, zone)
  }
})

t.test('unknown, garbage and huge time zones are refused', async (t) => {
  const refused = [
    'Etc/Unknown', 'Mars/Olympus', 'Factory', '', ' ', 'Europe/Paris ', '../../etc/passwd', 'Europe/Paris;x=1',
    '<script>', 'x'.repeat(5 * 1024), 'Europe/' + 'A'.repeat(100), '+05:00', '\u0000', undefined, null, 42, ['UTC'], {}
  ]
  for (const value of refused) t.equal(validTimeZone(value), null, JSON.stringify(value)?.slice(0, 40) ?? String(value))
})

t.test('time zones are remembered without changing the answers, whatever is thrown at them', async (t) => {
  const zone = 'America/Argentina/Buenos_Aires'
  // Intl ignores letter case, so variants of one zone are endless valid names.
  for (let variant = 0; variant < 1500; variant++) {
    const name = [...zone].map((character, index) => (variant >> (index % 11)) & 1 ? character.toUpperCase() : character.toLowerCase()).join('')
    t.equal(validTimeZone(name), name)
  }
  t.equal(rememberedTimeZones(), MAX_KNOWN_TIME_ZONES, 'the memory stops at its cap: 1 500 variants, 1 000 remembered')
  t.equal(validTimeZone('Asia/Tokyo'), 'Asia/Tokyo', 'a zone first seen after them is still accepted')
  t.equal(validTimeZone('Asia/Tokyo'), 'Asia/Tokyo', 'and again')
  t.equal(validTimeZone('Mars/Olympus'), null, 'an unknown zone is refused')
  t.equal(validTimeZone('Mars/Olympus'), null, 'every time')
})

t.test('resolveHints: the live header beats the cookie, then the fallbacks', async (t) => {
  t.same(resolveHints({}), { hints: { theme: 'light', timeZone: 'UTC' }, sources: { theme: 'fallback', timeZone: 'fallback' } })
  t.same(resolveHints({ colorSchemeCookie: 'dark', timeZoneCookie: 'Europe/Paris' }),
    { hints: { theme: 'dark', timeZone: 'Europe/Paris' }, sources: { theme: 'cookie', timeZone: 'cookie' } })
  t.same(resolveHints({ colorSchemeCookie: 'dark', colorSchemeHeader: '"light"' }).hints.theme, 'light', 'the header is live; the cookie may be from an earlier visit')
  t.same(resolveHints({ colorSchemeCookie: 'dark', colorSchemeHeader: '"light"' }).sources.theme, 'header')
  t.same(resolveHints({ colorSchemeHeader: '"dark"' }), { hints: { theme: 'dark', timeZone: 'UTC' }, sources: { theme: 'header', timeZone: 'fallback' } })
  t.same(resolveHints({ colorSchemeCookie: 'purple', colorSchemeHeader: '"auto"' }).sources.theme, 'fallback', 'invalid values are ignored')
  t.same(resolveHints({ timeZoneCookie: 'Etc/Unknown' }).hints.timeZone, 'UTC')
  t.same(resolveHints({ timeZoneCookie: 'x'.repeat(5000) }).sources.timeZone, 'fallback')
})
