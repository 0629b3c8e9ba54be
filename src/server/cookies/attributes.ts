export interface CookieAttributes {
  readonly path: '/'
  readonly httpOnly: boolean
  readonly sameSite: 'lax'
  /** In production: browsers then send the cookie over https only, and accept `__Host-` names. */
  readonly secure: boolean
}

// Lax: sent on a top-level navigation from another site (a link to us works signed in), never on its subrequests.
export function cookieAttributes ({ secure }: { secure: boolean }): CookieAttributes {
  return Object.freeze({ path: '/', httpOnly: true, sameSite: 'lax', secure })
}
