// A web app that signs its users in with edgeauth through oauth4webapi
// (Node.js 20+, `npm install oauth4webapi`). Register the app as a client
// with the redirect URI ${APP_URL}/callback, then run
//   ISSUER=http://127.0.0.1:8080 CLIENT_ID=... CLIENT_SECRET=... \
//     APP_URL=http://127.0.0.1:3000 node oauth4webapi.mjs
// and open ${APP_URL}/login. CLIENT_SECRET is left out for a public client.
import { createServer } from 'node:http'
import * as oauth from 'oauth4webapi'

const issuer = new URL(process.env.ISSUER)
const app = new URL(process.env.APP_URL ?? 'http://127.0.0.1:3000')
const redirectUri = new URL('/callback', app).href
const secret = process.env.CLIENT_SECRET

// The one setting for an http issuer: oauth4webapi refuses plain http
// ("only requests to HTTPS are allowed") unless each request function gets
// the option [oauth.allowInsecureRequests]: true. An https issuer needs none.
const http = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {}
const as = await oauth.processDiscoveryResponse(issuer,
  await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...http }))
const client = { client_id: process.env.CLIENT_ID }
const clientAuth = secret ? oauth.ClientSecretBasic(secret) : oauth.None()

// What a sign-in in progress must remember, by its state. A real app keeps
// it in the user's session (a cookie) instead.
const pending = new Map()

async function login(res) {
  const verifier = oauth.generateRandomCodeVerifier()
  const state = oauth.generateRandomState()
  const nonce = oauth.generateRandomNonce()
  pending.set(state, { verifier, nonce })
  const url = new URL(as.authorization_endpoint)
  url.search = new URLSearchParams({
    response_type: 'code', client_id: client.client_id, redirect_uri: redirectUri,
    scope: 'openid profile email', state, nonce,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  })
  res.writeHead(302, { location: url.href }).end()
}

async function callback(url, res) {
  const state = url.searchParams.get('state')
  const p = pending.get(state)
  if (!p) return res.writeHead(400).end('unknown state\n')
  pending.delete(state)
  const params = oauth.validateAuthResponse(as, client, url, state)
  const answer = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params,
    redirectUri, p.verifier, http)
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, answer,
    { expectedNonce: p.nonce, requireIdToken: true })
  const { sub } = oauth.getValidatedIdTokenClaims(tokens)
  const userinfo = await oauth.processUserInfoResponse(as, client, sub,
    await oauth.userInfoRequest(as, client, tokens.access_token, http))
  res.writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ sub, userinfo, expires_in: tokens.expires_in }) + '\n')
}

createServer((req, res) => {
  const url = new URL(req.url, app)
  const route = { '/login': () => login(res), '/callback': () => callback(url, res) }[url.pathname]
  if (!route) return res.writeHead(404).end()
  route().catch((err) => res.writeHead(500).end(`sign-in failed: ${err.message}\n`))
}).listen(Number(app.port), app.hostname)
