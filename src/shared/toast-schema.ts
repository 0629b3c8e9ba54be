import { Type } from 'typebox'

/** A toast as it travels: checked when written to and read from the flash cookie; the Toast type derives from it. */
export const ToastSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  type: Type.Union([Type.Literal('message'), Type.Literal('success'), Type.Literal('error')]),
  title: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.String({ minLength: 1, maxLength: 1000 })
}, { additionalProperties: false })
