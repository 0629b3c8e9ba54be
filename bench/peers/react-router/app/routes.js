import { index, route } from '@react-router/dev/routes'

// The three addresses the bench drives, as the app has them.
export default [
  index('routes/home.jsx'),
  route('resources/theme-switch', 'routes/theme-switch.js'),
  route('resources/healthcheck', 'routes/healthcheck.js')
]
