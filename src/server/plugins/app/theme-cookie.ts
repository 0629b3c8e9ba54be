import fp from 'fastify-plugin'
import { createThemeCookie, type ThemeCookie } from '../../cookies/theme-cookie.js'

declare module 'fastify' {
  interface FastifyInstance {
    themeCookie: ThemeCookie
  }
}

export const themeCookie = fp(async (app) => {
  app.decorate('themeCookie', createThemeCookie(app.cookieAttributes, app.serializeCookie))
}, { name: 'theme-cookie', fastify: '5.x', dependencies: ['cookies'] })
