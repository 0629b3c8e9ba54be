import { Type } from 'typebox'

// Text without control characters or lone surrogates, which JSON writes as six bytes each: every other UTF-16 unit is
// at most three bytes, so any toast this schema accepts fits the flash cookie (src/server/cookies/flash-toast.ts, whose test
// sends the largest). An oversized toast is refused where it is made, never after a form's work is done.
const TEXT = '^[^\\p{Cc}\\p{Cs}]*$'

/** A toast as it travels: checked when written to and read from the flash cookie; the Toast type derives from it. */
export const ToastSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100, pattern: '^[\\w-]+$' }),
  type: Type.Union([Type.Literal('message'), Type.Literal('success'), Type.Literal('error')]),
  title: Type.Optional(Type.String({ maxLength: 100, pattern: TEXT })),
  description: Type.String({ minLength: 1, maxLength: 700, pattern: TEXT })
}, { additionalProperties: false })
