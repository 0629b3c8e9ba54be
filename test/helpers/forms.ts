import type { FastifyInstance } from 'fastify'
import type { HoneyProps } from '../../src/shared/page-data.js'
import { pageData } from './app.js'

/** The honeypot fields of a freshly rendered page, as a form on it carries them; `cookies` for a page behind sign-in. */
export async function renderedHoneypot (app: FastifyInstance, path = '/', cookies: Record<string, string> = {}): Promise<HoneyProps> {
  const page = await app.inject({ url: path, headers: { accept: 'text/html' }, cookies })
  if (page.statusCode !== 200) throw new Error(`renderedHoneypot: ${path} answered ${page.statusCode}${page.headers.location ? ` (to ${page.headers.location})` : ''}, not its page`)
  return pageData(page.body).honeyProps
}

/** What a person's browser sends: the honeypot fields as rendered (the trap empty), then the answers, which may override them. */
export function withHoneypot (props: HoneyProps, answers: Record<string, string | string[]>): Record<string, string | string[]> {
  return { [props.nameFieldName]: '', [props.validFromFieldName]: props.encryptedValidFrom, ...answers }
}
