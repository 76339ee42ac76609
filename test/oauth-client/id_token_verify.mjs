// Verifies ID tokens the way a relying party does: jose's
// createRemoteJWKSet against the running server's JWKS, and jwtVerify with
// the issuer, the audience, typ JWT and the algorithms OpenID Connect
// allows here. Usage: node id_token_verify.mjs ISSUER AUDIENCE TOKEN...
// Prints one JSON array: per token {alg, ok, claims} or {ok, code}.
import { createRemoteJWKSet, jwtVerify } from 'jose'

const [issuer, audience, ...tokens] = process.argv.slice(2)
const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`))
const results = []
for (const token of tokens) {
  try {
    const { payload, protectedHeader } = await jwtVerify(token, jwks,
      { issuer, audience, typ: 'JWT', algorithms: ['RS256', 'ES256'] })
    results.push({ alg: protectedHeader.alg, ok: true, claims: payload })
  } catch (e) {
    results.push({ ok: false, code: e.code ?? String(e) })
  }
}
console.log(JSON.stringify(results))
