#!/usr/bin/env python3
"""An authenticator for the passkey tests (docs/signin.md "Passkeys"),
written from WebAuthn Level 2 independently of the server's verifier: it
makes "none" attestations and assertions with a P-256 key kept in a file.

  webauthn_tool.py register KEYFILE CHALLENGE ORIGIN RP_ID [FLAGS]
      -> "CREDENTIAL_ID CLIENT_DATA ATTESTATION_OBJECT" (base64url)
  webauthn_tool.py assert KEYFILE CHALLENGE ORIGIN RP_ID COUNT [FLAGS]
      -> "CREDENTIAL_ID CLIENT_DATA AUTHENTICATOR_DATA SIGNATURE"

FLAGS: the authenticatorData flags byte (default UP|UV, and AT on register).
scripts/bench/callgrind's passkey sign-in rows import key, cose_key and
assertion.
"""
import base64, hashlib, json, os, struct, sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64u(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def cbor(v):
    """The little of RFC 8949 this needs: ints, bytes, text, maps."""
    def head(major, n):
        if n < 24:
            return bytes([major << 5 | n])
        for ai, fmt in ((24, ">B"), (25, ">H"), (26, ">I"), (27, ">Q")):
            if n < 1 << (8 * struct.calcsize(fmt)):
                return bytes([major << 5 | ai]) + struct.pack(fmt, n)
    if isinstance(v, int):
        return head(0, v) if v >= 0 else head(1, -1 - v)
    if isinstance(v, bytes):
        return head(2, len(v)) + v
    if isinstance(v, str):
        return head(3, len(v.encode())) + v.encode()
    if isinstance(v, dict):
        return head(5, len(v)) + b"".join(cbor(k) + cbor(x) for k, x in v.items())
    raise TypeError(v)


def key(path):
    if os.path.exists(path):
        with open(path, "rb") as f:
            k = serialization.load_pem_private_key(f.read(), None)
        cred = open(path + ".id", "rb").read()
    else:
        k, cred = ec.generate_private_key(ec.SECP256R1()), os.urandom(32)
        with open(path, "wb") as f:
            f.write(k.private_bytes(serialization.Encoding.PEM,
                                    serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()))
        open(path + ".id", "wb").write(cred)
    return k, cred


def client_data(kind, challenge, origin):
    return json.dumps({"type": kind, "challenge": challenge, "origin": origin,
                       "crossOrigin": False}, separators=(",", ":")).encode()


def cose_key(k):
    """The COSE key (RFC 8152 §13.1.1) of P-256 key k, as ES256."""
    n = k.public_key().public_numbers()
    return cbor({1: 2, 3: -7, -1: 1, -2: n.x.to_bytes(32, "big"), -3: n.y.to_bytes(32, "big")})


def assertion(k, cred, challenge, origin, rp_id, count, flags=0x05):
    """An assertion of credential cred (key k): the base64url of its
    credential ID, client data, authenticator data and signature."""
    ad = hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", count)
    cd = client_data("webauthn.get", challenge, origin)
    sig = k.sign(ad + hashlib.sha256(cd).digest(), ec.ECDSA(hashes.SHA256()))
    return b64u(cred), b64u(cd), b64u(ad), b64u(sig)


def main(argv):
    cmd, path, challenge, origin, rp_id = argv[1:6]
    k, cred = key(path)
    rp_hash = hashlib.sha256(rp_id.encode()).digest()
    if cmd == "register":
        flags = int(argv[6], 0) if len(argv) > 6 else 0x45
        ad = rp_hash + bytes([flags]) + struct.pack(">I", 0) + bytes(16) + \
            struct.pack(">H", len(cred)) + cred + cose_key(k)
        att = cbor({"fmt": "none", "attStmt": {}, "authData": ad})
        print(b64u(cred), b64u(client_data("webauthn.create", challenge, origin)), b64u(att))
    elif cmd == "assert":
        flags = int(argv[7], 0) if len(argv) > 7 else 0x05
        print(*assertion(k, cred, challenge, origin, rp_id, int(argv[6]), flags))
    else:
        sys.exit("usage: webauthn_tool.py register|assert ...")


if __name__ == "__main__":
    main(sys.argv)
