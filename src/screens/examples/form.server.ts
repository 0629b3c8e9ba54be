import { Type } from 'typebox'
import { defineAction } from '../../server/screens/index.js'

/** The sign-up form's fields: the schema checks them, types `values` and writes the messages a visitor reads. */
export const SignUpSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 80, errorMessage: { required: 'Enter your name', minLength: 'Enter your name', maxLength: 'Use at most 80 characters for your name' } }),
  // A message of its own when empty: the summary lists it away from the field, where "This field is required." names
  // none. A wrong address keeps the format's default, which shows an example.
  email: Type.String({ format: 'email', maxLength: 254, errorMessage: { required: 'Enter your email address' } }),
  // writeOnly: never sent back to the page, whatever else is refused.
  password: Type.String({ minLength: 8, maxLength: 200, writeOnly: true, errorMessage: { required: 'Choose a password', minLength: 'Use at least 8 characters for your password' } }),
  age: Type.Optional(Type.Integer({ minimum: 0, maximum: 150, errorMessage: 'Enter your age as a whole number of years' })),
  // A ticked box sends `on`, read as true; an unticked one sends nothing.
  agree: Type.Literal(true, { errorMessage: 'Tick the box to agree to the terms' })
}, { additionalProperties: false })

export const action = defineAction({
  schema: SignUpSchema,
  // A product creates the account here; the example keeps nothing, so no password is ever stored.
  handle ({ values }) {
    return { toast: { type: 'success', description: `Welcome, ${values.name}.` } }
  }
})
