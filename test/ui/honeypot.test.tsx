import t from 'tap'
import type { ReactElement } from 'react'
import { renderToString } from 'react-dom/server'
import { HoneypotInputs } from '../../src/ui/forms/honeypot-inputs.js'
import { HoneypotProvider } from '../../src/ui/honeypot.js'
import type { HoneyProps } from '../../src/shared/page-data.js'

const honeyProps: HoneyProps = {
  nameFieldName: 'name__confirm',
  validFromFieldName: 'from__confirm',
  encryptedValidFrom: 'b64url_VALUE-123'
}

/** Renders and fails the test on anything React logs (hydration or prop warnings). */
function render (test: Pick<typeof t, 'same'>, element: ReactElement): string {
  const logged: unknown[][] = []
  const original = console.error
  console.error = (...args: unknown[]) => { logged.push(args) }
  try {
    return renderToString(element)
  } finally {
    console.error = original
    test.same(logged, [], 'React logged nothing')
  }
}

/** The opening tag of the element whose tag matches `pattern`. */
function tag (html: string, pattern: RegExp): string {
  const found = html.match(pattern)
  if (!found) throw new Error(`no tag matching ${pattern} in ${html}`)
  return found[0]
}

t.test('renders the trap hidden, labelled, with the encrypted timestamp', async t => {
  const html = render(t, (
    <HoneypotProvider value={honeyProps}>
      <form method='post'><HoneypotInputs /></form>
    </HoneypotProvider>
  ))
  const wrapper = tag(html, /<div[^>]*>/)
  t.match(wrapper, / hidden=""/, 'hidden from people and assistive tech')
  t.match(wrapper, / aria-hidden="true"/)
  t.notMatch(html, /style=/, 'no inline style: the CSP would refuse it')

  const trap = tag(html, /<input[^>]*name="name__confirm"[^>]*>/)
  t.match(trap, /type="text"/)
  t.match(trap, /autoComplete="off"/i)
  t.match(trap, /tabindex="-1"/i)
  t.match(trap, /value=""/)

  const validFrom = tag(html, /<input[^>]*name="from__confirm"[^>]*>/)
  t.match(validFrom, /type="hidden"/)
  t.match(validFrom, /value="b64url_VALUE-123"/)

  const trapId = trap.match(/id="([^"]+)"/)?.[1]
  t.ok(trapId, 'the trap has an id')
  t.match(trapId, /name__confirm$/, 'derived from the field name')
  t.match(html, new RegExp(`<label for="${trapId}">Please leave this field blank</label>`), 'and a label pointing at it')
})

t.test('a custom label; two forms on a page do not share ids', async t => {
  const html = render(t, (
    <HoneypotProvider value={honeyProps}>
      <form><HoneypotInputs label='Leave empty' /></form>
      <form><HoneypotInputs /></form>
    </HoneypotProvider>
  ))
  t.match(html, />Leave empty<\/label>/)
  const ids = [...html.matchAll(/ id="([^"]+)"/g)].map(m => m[1])
  t.equal(ids.length, 4)
  t.equal(new Set(ids).size, 4, 'every id is unique')
})

t.test('outside the provider it says what is missing', async t => {
  const original = console.error
  console.error = () => {}
  t.teardown(() => { console.error = original })
  t.throws(() => renderToString(<HoneypotInputs />), /must be rendered inside <HoneypotProvider/)
})
