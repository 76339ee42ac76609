/* Recorded by test/browser/record_webauthn.mjs with the DevTools protocol's
 * virtual authenticator (CTAP2, internal, resident key, user verified) of
 * Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm):
 * one registration (attestation "none") and one assertion of its credential
 * per algorithm, each value base64url without padding, as a browser gives
 * them to a relying party. Do not edit; record again instead. */
#ifndef EDGEAUTH_WEBAUTHN_RECORDED_H
#define EDGEAUTH_WEBAUTHN_RECORDED_H

#define REC_ORIGIN "http://localhost:8080"
#define REC_RP_ID "localhost"
#define REC_CREATE_CHALLENGE "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
#define REC_GET_CHALLENGE "__79_Pv6-fj39vX08_Lx8O_u7ezr6uno5-bl5OPi4eA"

struct recorded_ceremony {
	const char *name;
	int alg;
	const char *credential_id, *create_client_data, *attestation_object;
	const char *get_client_data, *auth_data, *signature;
};

static const struct recorded_ceremony recorded[] = {
	{ "ES256", -7,
	  "bf3HgyyjgyB3Qn3d5Jh3Re53dVz_z42_pWj-0HDvFXg",
	  "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQUFFQ0F3UUZCZ2NJQ1FvTERBME9EeEFSRWhN"
	  "VUZSWVhHQmthR3h3ZEhoOCIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpm"
	  "YWxzZSwib3RoZXJfa2V5c19jYW5fYmVfYWRkZWRfaGVyZSI6ImRvIG5vdCBjb21wYXJlIGNsaWVudERhdGFKU09O"
	  "IGFnYWluc3QgYSB0ZW1wbGF0ZS4gU2VlIGh0dHBzOi8vZ29vLmdsL3lhYlBleCJ9",
	  "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVikSZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2NFAAAA"
	  "AQECAwQFBgcIAQIDBAUGBwgAIG39x4Mso4Mgd0J93eSYd0Xud3Vc_8-Nv6Vo_tBw7xV4pQECAyYgASFYIIpXe3Mh"
	  "CjNdvdNZPHcdhvSLRVt3wjx9Nc1CPghnfYggIlggfTyn-blGenvKlN6g-veUOYXEb5vqyet9etZ6_U_QJn0",
	  "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiX183OV9QdjYtZmozOXZYMDhfTHg4T191N2V6cjZ1"
	  "bm81LWJsNU9QaTRlQSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxz"
	  "ZX0",
	  "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAg",
	  "MEUCIQDKfS4wCh6TTYHPwqUEWvvCuo7AnH4-kJ7DcOWTjIEBjAIgI8XICfUDZyVD4yOrbYOSgSXGkDwiiRiCC8GT"
	  "mO8FFLI" },
	{ "RS256", -257,
	  "hhT8Tv4D-QAChqmwflBonp9uv9pAoHapeVGuaPKUHRU",
	  "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQUFFQ0F3UUZCZ2NJQ1FvTERBME9EeEFSRWhN"
	  "VUZSWVhHQmthR3h3ZEhoOCIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpm"
	  "YWxzZX0",
	  "o2NmbXRkbm9uZWdhdHRTdG10oGhhdXRoRGF0YVkBZ0mWDeWIDoxodDQXD2R2YFuP5K65ooYyx5lc87qDHZdjRQAA"
	  "AAEBAgMEBQYHCAECAwQFBgcIACCGFPxO_gP5AAKGqbB-UGien26_2kCgdql5Ua5o8pQdFaQBAwM5AQAgWQEA1rVT"
	  "rkupZKBP1rRNT66_qlm-6Smts7I7hceYVHanfsMEHtUWWpr8YPDOUoYIUoyMVLfjKPNZprRRNsXrtD4F4qZjZ_Q4"
	  "mQLWbtR1clnDSkcmlhopry4huaaPreMkhh5Jnp9-vH5Co4dM_j6XgLbozU7BWB5tbpgRTi8atf_uphBXtWdU5TC7"
	  "62_jJBNk-pm6uKBtaINcqyLhugQ-yvRSXGMjCsr0TmukjEE4PdcM-4Kce2DSgdT8VD-Aoh6JFnKPNN5PcXJU3vKC"
	  "di9IzO4wdEV66hPiF5Uv9sbtEsftya76MUPOU3RPtqgJ6wPFA2VB1sFpKbEFLzMMjSgiQ3PvGSFDAQAB",
	  "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiX183OV9QdjYtZmozOXZYMDhfTHg4T191N2V6cjZ1"
	  "bm81LWJsNU9QaTRlQSIsIm9yaWdpbiI6Imh0dHA6Ly9sb2NhbGhvc3Q6ODA4MCIsImNyb3NzT3JpZ2luIjpmYWxz"
	  "ZX0",
	  "SZYN5YgOjGh0NBcPZHZgW4_krrmihjLHmVzzuoMdl2MFAAAAAg",
	  "IwSkLnUIsyYRAsj53oeP60zGFcq9Tl7JKP0CmGMRp5PRzEcBWJXfRnDbY5syEhzkmC3vooSl90TZ5PR1d2selPb2"
	  "nFZ-wAFJ3fQkPUVBiUGuGBNrb-46k0bl6_3kIqj6SpLMmTx-t90mEZmbGPqqI1xdMHNLsEQ4VJz9c8hzga1APnR_"
	  "8ExX6WF7eFrVJV37yUgethtLh_G9xbCcalFTyGpaelDX5NRjefJmHfmNb55gTehQ58CZyVYKQ4fkwyjIr_R3nHiC"
	  "KYRxw0MWEnhEp25WNa8azPJu65ApzW88G5xSlIEtaRPVLbUT7IRfOis277BoTNkAzfVgf-Y-SmjfAQ" },
};

#endif
