// A web app that signs its users in with edgeauth through openid-client
// (Node.js 20+, `npm install openid-client`). Register the app as a client
// with the redirect URI ${APP_URL}/callback, then run
//   ISSUER=http://127.0.0.1:8080 CLIENT_ID=... CLIENT_SECRET=... \
//     APP_URL=http://127.0.0.1:3000 node openid-client.mjs
// and open ${APP_URL}/login. CLIENT_SECRET is left out for a public client.
import { createServer } from 'node:http'
import * as client from 'openid-client'

const issuer = new URL(process.env.ISSUER)
const app = new URL(process.env.APP_URL ?? 'http://127.0.0.1:3000')
const redirectUri = new URL('/callback', app).href
const secret = process.env.CLIENT_SECRET

// The one setting for an http issuer: openid-client refuses plain http
// ("only requests to HTTPS are allowed") unless allowInsecureRequests is
// among its execute options. An https issuer needs nothing.
const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : []
const config = await client.discovery(issuer, process.env.CLIENT_ID, undefined,
  secret ? client.ClientSecretBasic(secret) : client.None(), { execute })

// What a sign-in in progress must remember, by its state. A real app keeps
// it in the user's session (a cookie) instead.
const pending = new Map()

async function login(res) {
  const verifier = client.randomPKCECodeVerifier()
  const state = client.randomState()
  const nonce = client.randomNonce()
  pending.set(state, { verifier, nonce })
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: 'openid profile email', state, nonce,
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  })
  res.writeHead(302, { location: url.href }).end()
}

async function callback(url, res) {
  const state = url.searchParams.get('state')
  const p = pending.get(state)
  if (!p) return res.writeHead(400).end('unknown state\n')
  pending.delete(state)
  const tokens = await client.authorizationCodeGrant(config, url,
    { pkceCodeVerifier: p.verifier, expectedState: state, expectedNonce: p.nonce, idTokenExpected: true })
  const { sub } = tokens.claims()
  const userinfo = await client.fetchUserInfo(config, tokens.access_token, sub)
  res.writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ sub, userinfo, expires_in: tokens.expires_in }) + '\n')
}

createServer((req, res) => {
  const url = new URL(req.url, app)
  const route = { '/login': () => login(res), '/callback': () => callback(url, res) }[url.pathname]
  if (!route) return res.writeHead(404).end()
  route().catch((err) => res.writeHead(500).end(`sign-in failed: ${err.message}\n`))
}).listen(Number(app.port), app.hostname)
