// Verifies a back-channel logout token the way a relying party does (OIDC
// Back-Channel Logout 1.0 §2.6): jose's createRemoteJWKSet against the
// running server's JWKS, and jwtVerify with the issuer, the client as the
// audience, typ logout+jwt and the algorithms an ID token may have.
// Usage: node logout_verify.mjs ISSUER AUDIENCE TOKEN
// Prints {ok, header, claims}, or {ok: false, code} (jose's error code).
import { createRemoteJWKSet, jwtVerify } from 'jose'

const [issuer, audience, token] = process.argv.slice(2)
const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`))
try {
  const { payload, protectedHeader } = await jwtVerify(token, jwks, {
    issuer, audience, typ: 'logout+jwt', algorithms: ['RS256', 'ES256'], maxTokenAge: '120s'
  })
  console.log(JSON.stringify({ ok: true, header: protectedHeader, claims: payload }))
} catch (e) {
  console.log(JSON.stringify({ ok: false, code: e.code ?? String(e) }))
}
