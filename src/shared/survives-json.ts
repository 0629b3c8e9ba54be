// A screen's data is hydrated from JSON: only what JSON carries back unchanged, and top-level promises of that.
// Each refusal is a sentence, so the compiler's error ends in what to do. Mapped types, not `Record<string, Json>`,
// so that an interface (which has no index signature) is accepted.

type Primitive = string | number | boolean | null | undefined

/** A value below the top level of the data: objects and arrays field by field. */
type Json<Value> =
  // `unknown` and `any` say nothing to check: the server checks the value itself, in development.
  unknown extends Value ? Value
    : Value extends Primitive ? Value
      : Value extends bigint ? 'a bigint does not survive JSON (JSON.stringify throws): send it as a string'
        : Value extends symbol ? 'a symbol does not survive JSON (it is dropped)'
          : Value extends Function ? 'a function does not survive JSON (it is dropped): send plain data, not callbacks or class instances with methods'
            : Value extends Date ? 'a Date does not survive JSON (it arrives as a string): send date.toISOString(), and make a Date where it is shown'
              : Value extends ReadonlyMap<unknown, unknown> ? 'a Map does not survive JSON (it arrives as {}): send Object.fromEntries(map) or [...map]'
                : Value extends ReadonlySet<unknown> ? 'a Set does not survive JSON (it arrives as {}): send [...set]'
                  : Value extends PromiseLike<unknown> ? 'a promise is deferred only at the top level of the data (docs/streaming.md); deeper, it arrives as {}'
                    : { [Key in keyof Value]: Json<Value[Key]> }

/** A field of the data's top level: a promise there is a deferred part, whose value must survive JSON. */
type TopLevelField<Value> = Value extends PromiseLike<infer Part> ? PromiseLike<Json<Part>> : Json<Value>

/**
 * The data a screen's loader returns and its view renders from. A mapped type at the top: a constraint that is a
 * conditional type of its own parameter is circular to TypeScript. So `unknown` is refused here: name the type.
 */
export type SurvivesJson<Data> = { [Key in keyof Data]: Data extends readonly unknown[] ? Json<Data[Key]> : TopLevelField<Data[Key]> }
