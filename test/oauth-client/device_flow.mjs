// issue32.6: the device grant (RFC 8628, docs/device.md) as openid-client's
// and oauth4webapi's own device functions run it, unchanged: the request for
// codes, then their polling (authorization_pending, slow_down) until the
// user decides. Usage: node device_flow.mjs LIB ISSUER CLIENT_ID, LIB
// openid-client or oauth4webapi. Prints a line {user_code, ...} when the
// codes come, then one line: {ok: true, sub, aud, scope, at_verified,
// id_verified} (both tokens verified with jose against the JWKS) or
// {ok: false, error}.
import * as client from 'openid-client'
import * as oauth from 'oauth4webapi'
import { createRemoteJWKSet, jwtVerify } from 'jose'

const [lib, issuerUrl, clientId] = process.argv.slice(2)
const issuer = new URL(issuerUrl)
const insecure = issuer.protocol === 'http:'
const out = (o) => console.log(JSON.stringify(o))
const codes = (r) => out({ user_code: r.user_code, verification_uri: r.verification_uri,
  verification_uri_complete: r.verification_uri_complete, interval: r.interval })

async function viaOpenidClient () {
  const config = await client.discovery(issuer, clientId, undefined, client.None(),
    { execute: insecure ? [client.allowInsecureRequests] : [] })
  const started = await client.initiateDeviceAuthorization(config, { scope: 'openid profile' })
  codes(started)
  const tokens = await client.pollDeviceAuthorizationGrant(config, started)
  return { access_token: tokens.access_token, id_token: tokens.id_token, scope: tokens.scope }
}

async function viaOauth4webapi () {
  const opts = insecure ? { [oauth.allowInsecureRequests]: true } : {}
  const as = await oauth.discoveryRequest(issuer, { ...opts, algorithm: 'oidc' })
    .then((r) => oauth.processDiscoveryResponse(issuer, r))
  const c = { client_id: clientId }
  const auth = oauth.None()
  const started = await oauth.processDeviceAuthorizationResponse(as, c,
    await oauth.deviceAuthorizationRequest(as, c, auth,
      new URLSearchParams({ scope: 'openid profile' }), opts))
  codes(started)
  let interval = started.interval ?? 5
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, interval * 1000))
    const response = await oauth.deviceCodeGrantRequest(as, c, auth, started.device_code, opts)
    try {
      const result = await oauth.processDeviceCodeResponse(as, c, response)
      return { access_token: result.access_token, id_token: result.id_token, scope: result.scope }
    } catch (e) {
      if (e instanceof oauth.ResponseBodyError && e.error === 'authorization_pending') continue
      if (e instanceof oauth.ResponseBodyError && e.error === 'slow_down') { interval += 5; continue }
      throw e
    }
  }
}

try {
  const t = lib === 'openid-client' ? await viaOpenidClient() : await viaOauth4webapi()
  const jwks = createRemoteJWKSet(new URL(`${issuerUrl}/.well-known/jwks.json`))
  const at = await jwtVerify(t.access_token, jwks, { issuer: issuerUrl, typ: 'at+jwt', algorithms: ['ES256'] })
  const id = await jwtVerify(t.id_token, jwks, { issuer: issuerUrl, audience: clientId })
  out({ ok: true, sub: id.payload.sub, aud: id.payload.aud, scope: t.scope,
    at_verified: at.payload.sub === id.payload.sub, id_verified: true })
} catch (e) {
  out({ ok: false, error: e.error ?? e.code ?? String(e) })
}
