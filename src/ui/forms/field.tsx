import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from 'react'
import { useFormContext } from './form-context.js'

type InputType = 'text' | 'email' | 'password' | 'number' | 'tel' | 'url' | 'search' | 'date' | 'time' | 'checkbox'

type ControlAttributes = Omit<InputHTMLAttributes<HTMLInputElement>, 'id' | 'name' | 'type' | 'value' | 'defaultValue' | 'defaultChecked' | 'checked' | 'children' | 'aria-invalid' | 'aria-describedby'>

export interface FieldProps extends ControlAttributes {
  name: string
  label: ReactNode
  hint?: ReactNode
  /** `textarea` and `select` for those elements; otherwise the input's type. */
  type?: InputType | 'textarea' | 'select'
  options?: ReadonlyArray<{ value: string, label: string }>
  rows?: number
  /** What a fresh form shows, such as the value saved before; a form shown again after a refusal shows what was sent. */
  defaultValue?: string
  /** Whether a fresh form's box is ticked; after a refusal, whether it was. */
  defaultChecked?: boolean
}

/** A password is never filled in again, whatever the server sends. */
export function Field ({ name, label, hint, type = 'text', options = [], rows, defaultValue, defaultChecked = false, ...attributes }: FieldProps) {
  const { fieldId, errors, values } = useFormContext('Field')
  const id = fieldId(name)
  const error = errors[name]
  const kept = values === null ? defaultValue : type === 'password' ? undefined : values[name]
  const text = Array.isArray(kept) ? kept[0] : kept
  const hintId = hint ? `${id}-hint` : undefined
  const errorId = error ? `${id}-error` : undefined
  const control = {
    id,
    name,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': [hintId, errorId].filter(Boolean).join(' ') || undefined
  }

  const messages = (
    <>
      {hint ? <p id={hintId} className='field-hint'>{hint}</p> : null}
      {error ? <p id={errorId} className='field-error'><span className='visually-hidden'>Error: </span>{error}</p> : null}
    </>
  )

  if (type === 'checkbox') {
    return (
      <div className='field field-checkbox' data-invalid={error ? 'true' : undefined}>
        {messages}
        <div className='field-check'>
          <input {...attributes} {...control} type='checkbox' defaultChecked={values === null ? defaultChecked : text !== undefined && text !== 'off' && text !== 'false'} />
          <label htmlFor={id}>{label}</label>
        </div>
      </div>
    )
  }

  let input: ReactNode
  if (type === 'textarea') {
    input = <textarea {...(attributes as TextareaHTMLAttributes<HTMLTextAreaElement>)} {...control} rows={rows} defaultValue={text} />
  } else if (type === 'select') {
    input = (
      <select {...(attributes as SelectHTMLAttributes<HTMLSelectElement>)} {...control} defaultValue={text ?? ''}>
        {options.map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
      </select>
    )
  } else {
    input = <input {...attributes} {...control} type={type} defaultValue={text} />
  }
  return (
    <div className='field' data-invalid={error ? 'true' : undefined}>
      <label htmlFor={id} className='field-label'>{label}</label>
      {messages}
      {input}
    </div>
  )
}
