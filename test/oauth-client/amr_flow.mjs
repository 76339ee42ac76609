// amr (RFC 8176) of a password + TOTP sign-in in real ID tokens, as
// openid-client (pinned in package-lock.json) receives and checks them:
// discovery, code + PKCE + nonce through the sign-in page's two steps (the
// password, then the code), the library's ID token checks (signature
// against JWKS, iss, aud, exp, nonce), and a refresh whose new ID token
// keeps the session's amr (docs/signin.md §"ID tokens"). Prints "ok <step>"
// per step; on the first failure "FAIL <step>: why" and exits 1. Run by
// test/blackbox/t_totp.sh, which passes:
//   BASE                          the issuer URL
//   CLIENT_ID CLIENT_SECRET       a confidential client (client_secret_basic)
//   REDIRECT_URI                  its redirect URI (never loaded: the code is
//                                 read from the Location header)
//   USER_EMAIL USER_PASSWORD      a user with a confirmed TOTP factor
//   OTP                           the factor's code now (the server's clock
//                                 is frozen), from oathtool
//   WRONG_OTP                     a code that is not it
import * as client from 'openid-client'
import { parseForm, steps } from './steps.mjs'

const describe = (err) => [`${err?.name ?? 'Error'}: ${err?.message ?? err}`,
  err?.code && `code=${err.code}`, err?.error && `error=${err.error}`].filter(Boolean).join(' ')
const { fail, step, assert } = steps(describe)
const env = (name) => process.env[name] || fail('setup', new Error(`missing environment variable ${name}`))

const base = env('BASE')
const redirectUri = env('REDIRECT_URI')
// as oidc_flow.mjs: plain http needs the library's testing switch; the
// signature is checked against JWKS too
const execute = [client.enableNonRepudiationChecks]
if (base.startsWith('http:')) execute.push(client.allowInsecureRequests)

const config = await step('discovery', () => client.discovery(new URL(base), env('CLIENT_ID'),
  undefined, client.ClientSecretBasic(env('CLIENT_SECRET')), { execute }))

// post(action, fields): the browser's form post, not following the redirect
const post = (action, fields) => fetch(action, { method: 'POST', body: fields, redirect: 'manual' })

const verifier = client.randomPKCECodeVerifier()
const nonce = client.randomNonce()
const state = client.randomState()
const url = client.buildAuthorizationUrl(config, {
  redirect_uri: redirectUri, scope: 'openid', nonce, state,
  code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
})

// the first step: the password answers the second step's page, not a code
let second
await step('password_asks_code', async () => {
  const page = await fetch(url, { redirect: 'manual' })
  assert(page.status === 200, `authorize answered ${page.status}`)
  const { action, fields } = parseForm(await page.text(), url)
  fields.set('email', env('USER_EMAIL'))
  fields.set('password', env('USER_PASSWORD'))
  const res = await post(action, fields)
  const html = await res.text()
  assert(res.status === 200 && !res.headers.get('location'), `the password answered ${res.status}`)
  second = parseForm(html, url)
  assert(second.fields.get('factor_token') && /name="otp"/.test(html), 'no code form after the password')
})

// a wrong code: the page again, and no code for the app
await step('wrong_code_refused', async () => {
  const fields = new URLSearchParams(second.fields)
  fields.set('otp', env('WRONG_OTP'))
  const res = await post(second.action, fields)
  assert(res.status === 401 && !res.headers.get('location'), `a wrong code answered ${res.status}`)
})

let callback
await step('code_signs_in', async () => {
  const fields = new URLSearchParams(second.fields)
  fields.set('otp', env('OTP'))
  const res = await post(second.action, fields)
  const location = res.headers.get('location')
  assert(res.status === 302 && location, `the code answered ${res.status}`)
  callback = new URL(location)
  assert(callback.href.startsWith(redirectUri + '?'), `sent to ${callback.href}`)
})

const amr = ['pwd', 'otp', 'mfa']
let tokens
await step('id_token_amr', async () => {
  tokens = await client.authorizationCodeGrant(config, callback,
    { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce, idTokenExpected: true })
  const c = tokens.claims()
  assert(c.nonce === nonce, `nonce ${c.nonce}`)
  assert(JSON.stringify(c.amr) === JSON.stringify(amr), `amr ${JSON.stringify(c.amr)}`)
  assert(typeof c.auth_time === 'number' && typeof c.sid === 'string', `auth_time ${c.auth_time} sid ${c.sid}`)
})

await step('refresh_keeps_amr', async () => {
  const t = await client.refreshTokenGrant(config, tokens.refresh_token)
  assert(t.id_token && t.id_token !== tokens.id_token, 'no new ID token')
  const c = t.claims()
  assert(JSON.stringify(c.amr) === JSON.stringify(amr), `refreshed amr ${JSON.stringify(c.amr)}`)
  assert(c.sid === tokens.claims().sid, `refreshed sid ${c.sid}`)
})

process.exit(0)
