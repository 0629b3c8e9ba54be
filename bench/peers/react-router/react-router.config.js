// Framework mode, rendered on the server, as the Epic Stack runs React Router.
export default { ssr: true }
