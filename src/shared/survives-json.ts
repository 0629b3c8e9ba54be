// Mapped types, not `Record<string, Json>`: an interface has no index signature (docs/decisions/loader-data-survives-json.md).

/** What to send instead, said alike by the compiler's errors here and by the server's check (page-data-json.ts). */
export const SEND_INSTEAD = {
  bigint: 'send it as a string',
  date: 'send date.toISOString(), and make a Date where it is shown',
  map: 'send Object.fromEntries(map) or [...map]',
  set: 'send [...set]'
} as const
type Instead = typeof SEND_INSTEAD

type Primitive = string | number | boolean | null | undefined

type Json<Value> =
  // `unknown` and `any` say nothing to check: the server checks the value itself, in development.
  unknown extends Value ? Value
    : Value extends Primitive ? Value
      : Value extends bigint ? `a bigint does not survive JSON (JSON.stringify throws): ${Instead['bigint']}`
        : Value extends symbol ? 'a symbol does not survive JSON (it is dropped)'
          : Value extends Function ? 'a function does not survive JSON (it is dropped): send plain data, not callbacks or class instances with methods'
            : Value extends Date ? `a Date does not survive JSON (it arrives as a string): ${Instead['date']}`
              : Value extends ReadonlyMap<unknown, unknown> ? `a Map does not survive JSON (it arrives as {}): ${Instead['map']}`
                : Value extends ReadonlySet<unknown> ? `a Set does not survive JSON (it arrives as {}): ${Instead['set']}`
                  : Value extends PromiseLike<unknown> ? 'a promise is deferred only at the top level of the data (docs/streaming.md); deeper, it arrives as {}'
                    : { [Key in keyof Value]: Json<Value[Key]> }

type TopLevelField<Value> = Value extends PromiseLike<infer Part> ? PromiseLike<Json<Part>> : Json<Value>

/** Mapped at the top: a constraint that is a conditional type of its own parameter is circular to TypeScript. */
export type SurvivesJson<Data> = { [Key in keyof Data]: Data extends readonly unknown[] ? Json<Data[Key]> : TopLevelField<Data[Key]> }
