import { defineScreen } from '../../ui/define-screen.js'
import { Field, Form, SubmitButton } from '../../ui/forms/index.js'

const PATH = '/examples/form'

export default defineScreen<null>({
  path: PATH,
  meta: {
    title: 'Sign up',
    description: 'An example sign-up form that works with and without JavaScript.',
    canonical: PATH
  },
  component: function SignUpScreen () {
    return (
      <main>
        <h1>Sign up</h1>
        <p>An example: nothing is stored.</p>
        <Form action={PATH}>
          <Field name='name' label='Name' autoComplete='name' maxLength={80} required />
          <Field name='email' type='email' label='Email address' autoComplete='email' required />
          <Field name='password' type='password' label='Password' hint='At least 8 characters.' autoComplete='new-password' required />
          <Field name='age' type='number' label='Age (optional)' />
          <Field name='agree' type='checkbox' label='I agree to the terms' required />
          <SubmitButton>Sign up</SubmitButton>
        </Form>
        <p><a href='/examples'>Back to the examples</a></p>
      </main>
    )
  }
})
