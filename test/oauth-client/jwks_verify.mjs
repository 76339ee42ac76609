// Verifies access tokens the way a resource server would: jose's
// createRemoteJWKSet against the running server's JWKS, and jwtVerify with
// the issuer, typ at+jwt and ES256. Usage: node jwks_verify.mjs ISSUER TOKEN...
// Prints one JSON array: per token {kid, ok, code} (code: jose's error code).
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose'

const [issuer, ...tokens] = process.argv.slice(2)
const jwks = createRemoteJWKSet(new URL(`${issuer}/.well-known/jwks.json`))
const results = []
for (const token of tokens) {
  const { kid } = decodeProtectedHeader(token)
  try {
    await jwtVerify(token, jwks, { issuer, typ: 'at+jwt', algorithms: ['ES256'] })
    results.push({ kid, ok: true })
  } catch (e) {
    results.push({ kid, ok: false, code: e.code ?? String(e) })
  }
}
console.log(JSON.stringify(results))
