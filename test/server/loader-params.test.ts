import t from 'tap'
import { compile } from '../helpers/typecheck.js'

// A loader of `/notes/:id` reads its id from `request.params`, which was `unknown`: every parametric screen cast it,
// and a loader annotated with the request it expects did not compile. `defineLoader<Data, Params>` names them.

t.setTimeout(120_000)

const LOADER = (body: string) => `
import { defineLoader } from '../../src/server/screens/index.js'
${body}
`

const errors = compile({
  named: LOADER("export const loader = defineLoader<{ id: number }, { id: string }>(({ request }) => ({ id: Number(request.params.id) }))"),
  unnamed: LOADER("export const loader = defineLoader<{ id: string }>(({ request }) => ({ id: request.params.id }))"),
  checked: LOADER("export const loader = defineLoader<{ id: string }>(({ request }) => ({ id: request.params.id ?? 'none' }))"),
  data: LOADER("export const loader = defineLoader<{ at: Date }, { id: string }>(() => ({ at: new Date() }))")
}, 'server')

t.test("a loader names its path's parameters and reads them typed", async (t) => {
  t.same(errors.get('named'), [], 'defineLoader<Data, { id: string }>: request.params.id is a string')
  t.match(errors.get('unnamed'), [/Type 'string \| undefined' is not assignable to type 'string'/], 'unnamed, a parameter may be absent')
  t.same(errors.get('checked'), [], 'and reads as one once checked')
  t.match(errors.get('data'), [/a Date does not survive JSON/], 'the data is still held to JSON')
})
