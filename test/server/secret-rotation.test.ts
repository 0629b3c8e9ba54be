import t from 'tap'
import { assertHuman } from '../../src/server/security/honeypot.js'
import { build, pageData, postForm, setCookie } from '../helpers/app.js'

/**
 * Rotating SESSION_SECRET and HONEYPOT_SECRET while instances with the old
 * and the new list serve side by side, the way the README tells operators:
 * learn the new secret, then sign with it, then (a day later) forget the old.
 */

const OLD = 'old-secret-0123456789abcdefghijklmnopqrstuv'
const NEW = 'new-secret-0123456789abcdefghijklmnopqrstuv'
/** The lists the fleet runs, one rolling restart after another. */
const STEPS = [[OLD], [OLD, NEW], [NEW, OLD], [NEW]] as const
const T0 = 1_750_000_000_000
const SENT = 'Sent.'

const name = (secret: string) => secret === OLD ? 'old' : 'new'

type Instance = Awaited<ReturnType<typeof instance>>

/** One instance of the app running `secrets` for both variables, with a form that checks the honeypot and sets a flash toast. */
async function instance (test: Parameters<typeof build>[0], secrets: readonly string[], clock: { now: number }) {
  const list = secrets.join(',')
  const { app } = await build(test, {
    env: { SESSION_SECRET: list, HONEYPOT_SECRET: list },
    honeypot: { now: () => clock.now },
    routes (scope) {
      scope.post('/test/form', async (request, reply) => {
        assertHuman(request)
        scope.flashToasts.set(reply, { type: 'success', description: SENT })
        return reply.redirect('/', 303)
      })
    }
  })
  return app
}

/** Renders the form on `renderer`, posts it to `receiver`, and follows the redirect on `reader`. */
async function submit (renderer: Instance, receiver: Instance, reader: Instance, clock: { now: number }) {
  const { honeyProps } = pageData((await renderer.inject({ url: '/', headers: { accept: 'text/html' } })).body)
  clock.now += 5000
  const posted = await postForm(receiver, '/test/form', { [honeyProps.nameFieldName]: '', [honeyProps.validFromFieldName]: honeyProps.encryptedValidFrom })
  const toast = setCookie(posted, reader.flashToasts.cookieName)
  const next = toast ? await reader.inject({ url: '/', headers: { accept: 'text/html' }, cookies: { [toast.name]: toast.value } }) : undefined
  return { status: posted.statusCode, toast: next ? pageData(next.body).toast?.description : undefined }
}

t.test('each step of a rotation runs beside the one before it: no honest form is refused and no flash toast is lost', async (t) => {
  const clock = { now: T0 }
  const fleet = await Promise.all(STEPS.map((secrets) => instance(t, secrets, clock)))
  for (let step = 1; step < STEPS.length; step++) {
    const before = fleet[step - 1]!
    const after = fleet[step]!
    const names = `[${STEPS[step - 1]!.map(name).join(', ')}] beside [${STEPS[step]!.map(name).join(', ')}]`
    // The last step only once no form from the first is still open (24 h): a form the old list rendered is then too old anyway.
    const pairs: Array<[string, Instance, Instance]> = step === STEPS.length - 1
      ? [['new renders, old receives', after, before]]
      : [['old renders, new receives', before, after], ['new renders, old receives', after, before]]
    for (const [what, renderer, receiver] of pairs) {
      t.same(await submit(renderer, receiver, renderer, clock), { status: 303, toast: SENT }, `${names}: ${what}`)
      t.same(await submit(receiver, receiver, renderer, clock), { status: 303, toast: SENT }, `${names}: a toast set by one is shown by the other`)
    }
  }
})

t.test('a form rendered before the rotation is accepted after it, until the old secret is dropped', async (t) => {
  const clock = { now: T0 }
  const [first, , third, last] = await Promise.all(STEPS.map((secrets) => instance(t, secrets, clock)))
  t.same(await submit(first!, third!, third!, clock), { status: 303, toast: SENT }, 'signed with the old secret, verified by the rotated list')
  t.equal((await submit(first!, last!, last!, clock)).status, 400, 'refused once the old secret is gone')
})

t.test('skipping the first step would refuse forms: an instance cannot verify a secret it has not learned', async (t) => {
  const clock = { now: T0 }
  const old = await instance(t, [OLD], clock)
  const rotated = await instance(t, [NEW, OLD], clock)
  t.equal((await submit(rotated, old, rotated, clock)).status, 400, 'a form rendered by the new list is refused by the old')
  const { toast } = await submit(old, old, rotated, clock)
  t.equal(toast, SENT, 'the old toast is read by the new list')
  const fromNew = await submit(rotated, rotated, old, clock)
  t.equal(fromNew.toast, undefined, 'but a toast the new list signs is lost on the old')
})
