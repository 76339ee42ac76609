// amr (RFC 8176) of a sign-in a browser made, as openid-client (pinned in
// package-lock.json) receives and checks it: discovery, then the exchange
// of the code the app's redirect carried, with the library's ID token
// checks (signature against JWKS, iss, aud, exp, nonce, state), and the
// amr claim. Prints "ok <step>" per step; on the first failure
// "FAIL <step>: why" and exits 1. Run by test/blackbox/t_passkeys_browser.sh
// (a passkey alone, docs/signin.md §"Passkeys"), which passes:
//   BASE                      the issuer URL
//   CLIENT_ID CLIENT_SECRET   a confidential client (client_secret_basic)
//   CALLBACK_FILE             JSON {callback, verifier, state, nonce}: the
//                             redirect's URL and what the browser sent
//   AMR                       the amr expected, as JSON
import { readFileSync } from 'node:fs'
import * as client from 'openid-client'
import { steps } from './steps.mjs'

const describe = (err) => [`${err?.name ?? 'Error'}: ${err?.message ?? err}`,
  err?.code && `code=${err.code}`, err?.error && `error=${err.error}`].filter(Boolean).join(' ')
const { fail, step, assert } = steps(describe)
const env = (name) => process.env[name] || fail('setup', new Error(`missing environment variable ${name}`))

const base = env('BASE')
const execute = [client.enableNonRepudiationChecks]
if (base.startsWith('http:')) execute.push(client.allowInsecureRequests)
const sent = JSON.parse(readFileSync(env('CALLBACK_FILE'), 'utf8'))

const config = await step('discovery', () => client.discovery(new URL(base), env('CLIENT_ID'),
  undefined, client.ClientSecretBasic(env('CLIENT_SECRET')), { execute }))

await step('id_token_amr', async () => {
  const tokens = await client.authorizationCodeGrant(config, new URL(sent.callback),
    { pkceCodeVerifier: sent.verifier, expectedState: sent.state, expectedNonce: sent.nonce,
      idTokenExpected: true })
  const c = tokens.claims()
  assert(JSON.stringify(c.amr) === env('AMR'), `amr ${JSON.stringify(c.amr)}`)
  assert(typeof c.auth_time === 'number' && typeof c.sid === 'string', `auth_time ${c.auth_time} sid ${c.sid}`)
})

process.exit(0)
