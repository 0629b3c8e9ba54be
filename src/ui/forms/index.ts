/** The form kit: <Form> (with the honeypot inside), <Field> and <SubmitButton>; the route is defineFormRoute on the server. */
export { Field, type FieldProps } from './field.js'
export { Form, SubmitButton, type FormProps } from './form.js'
