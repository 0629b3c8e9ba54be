import t from 'tap'
import { compile } from '../helpers/typecheck.js'

// A screen's data is serialized into its page and hydrated in the browser, so defineLoader and defineScreen refuse a
// type JSON would change (src/shared/survives-json.ts). Each case is a screen's two halves, compiled with the
// project's own compiler options as `npm run typecheck` compiles a screen.

t.setTimeout(120_000)

const SCREEN = (declarations: string) => `
import { defineLoader } from '../../src/server/screens/index.js'
import { defineScreen } from '../../src/ui/define-screen.js'
${declarations}
export const loader = defineLoader<Data>(() => null as unknown as Data)
export default defineScreen<Data>({ path: '/oops', component: () => null })
`

/** What a newcomer may write, and the words the compiler's error must end with. */
const REFUSED: Array<[what: string, declarations: string, says: string]> = [
  ['a Date', 'interface Data { when: string, created?: Date }', 'a Date does not survive JSON (it arrives as a string)'],
  ['a Date in a list', 'interface Data { visits: Array<{ at: Date }> }', 'a Date does not survive JSON'],
  ['a Map', 'interface Data { counts: Map<string, number> }', 'a Map does not survive JSON (it arrives as {})'],
  ['a Set', 'interface Data { tags: ReadonlySet<string> }', 'a Set does not survive JSON (it arrives as {})'],
  ['a bigint', 'interface Data { id: bigint }', 'a bigint does not survive JSON'],
  ['a symbol', 'interface Data { kind: symbol }', 'a symbol does not survive JSON'],
  ['a function', 'interface Data { onClick: () => void }', 'a function does not survive JSON'],
  ['a class instance with methods', 'class Money { constructor (readonly cents: number) {} format () { return String(this.cents) } }\ninterface Data { price: Money }', 'a function does not survive JSON'],
  ['a promise below the top level', 'interface Data { extra: { slow: Promise<string> } }', 'a promise is deferred only at the top level of the data'],
  ['a deferred part whose value holds a Date', 'interface Data { slow: Promise<{ at: Date }> }', 'a Date does not survive JSON'],
  ['a Date in a type alias', 'type Data = { when: string } & { created: Date }', 'a Date does not survive JSON']
]

/** Ordinary data: interfaces (no index signature), optional fields, nesting, unions, deferred parts. */
const ACCEPTED: Array<[what: string, declarations: string]> = [
  ['an interface with optional and readonly fields', 'interface Data { readonly title: string, count?: number, draft: boolean, note: string | null }'],
  ['nested interfaces, lists and tuples', 'interface Item { name: string, tags: readonly string[] }\ninterface Data { items: Item[], pair: [string, number], matrix: number[][] }'],
  ['a recursive interface', 'interface Data { name: string, children: Data[] }'],
  ['records and literal unions', "interface Data { byId: Record<string, { label: string }>, theme: 'light' | 'dark' }"],
  ['a deferred part at the top level', 'interface Data { city: string, forecast: Promise<{ summary: string }>, later?: Promise<string[]> }'],
  ['no data', 'type Data = null'],
  ['data or nothing', 'type Data = { title: string } | null'],
  ['fields the author could not type', 'interface Data { raw: unknown, loose: any }']
]

const ERROR_START = "Type 'Data' does not satisfy the constraint 'SurvivesJson<Data>'"


const screens = Object.fromEntries([
  ...REFUSED.map(([, declarations], index) => [`refused-${index}`, SCREEN(declarations)]),
  ...ACCEPTED.map(([, declarations], index) => [`accepted-${index}`, SCREEN(declarations)]),
  ['inferred', "import { defineLoader } from '../../src/server/screens/index.js'\nexport const loader = defineLoader(() => ({ when: new Date() }))"]
])
const errors = compile(screens, 'shared')

t.test('a loader or a view whose data would not survive JSON does not compile, and the error says why', async (t) => {
  REFUSED.forEach(([what, , says], index) => {
    const found = errors.get(`refused-${index}`) ?? []
    t.equal(found.length, 2, `${what}: refused by defineLoader and by defineScreen`, { found })
    for (const message of found) {
      t.ok(message.startsWith(ERROR_START), `${what}: the error names the rule`, { message })
      t.ok(message.split('\n').at(-1)?.includes(says), `${what}: and ends in "${says}"`, { message })
    }
  })
  t.match(errors.get('inferred'), [/a Date does not survive JSON/], 'a loader whose data type is inferred is refused as well')
})

t.test('ordinary data compiles, interfaces included', async (t) => {
  ACCEPTED.forEach(([what], index) => {
    t.same(errors.get(`accepted-${index}`), [], what)
  })
})
