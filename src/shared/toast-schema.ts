import { Type } from 'typebox'

// No control characters or lone surrogates (six bytes each in JSON): any accepted toast fits the flash cookie
// (src/server/cookies/flash-toast.ts), so an oversized one is refused where it is made, not after a form's work.
const TEXT = '^[^\\p{Cc}\\p{Cs}]*$'

export const ToastSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\w-]+$' }),
  type: Type.Union([Type.Literal('message'), Type.Literal('success'), Type.Literal('error')]),
  title: Type.Optional(Type.String({ maxLength: 100, pattern: TEXT })),
  description: Type.String({ minLength: 1, maxLength: 700, pattern: TEXT })
}, { additionalProperties: false })
