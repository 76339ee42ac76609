#ifndef EDGEAUTH_ERROR_H
#define EDGEAUTH_ERROR_H
/*
 * The one error type. Service and store functions fill a struct api_error and
 * return -1; the HTTP layer turns it into the reply in one place. The codes and
 * statuses are docs/api.md §"Errors"; nothing else chooses a status.
 */

enum api_code {
	E_INVALID_PARAMS,
	E_INVALID_CLIENT,
	E_CLIENT_NOT_ACTIVE,
	E_PROJECT_NOT_ACTIVE,
	E_INVALID_AUTHORIZATION_CODE,
	E_DIFFERENT_AUTHORIZE_REDIRECT_URI,
	E_AUTH_CODE_ALREADY_USED,
	E_AUTH_CODE_EXPIRED,
	E_INVALID_CODE_VERIFIER,
	E_INVALID_REFRESH_TOKEN,
	E_REFRESH_TOKEN_EXPIRED,
	E_REFRESH_TOKEN_ALREADY_USED,
	E_INVALID_CLIENT_CREDENTIALS,
	E_INVALID_AUTHORIZATION_TOKEN,
	E_INSUFFICIENT_PERMISSION,
	E_PROJECT_NOT_FOUND,
	E_RESOURCE_NOT_FOUND,
	E_ROLE_NOT_FOUND,
	E_USER_NOT_FOUND,
	E_CLIENT_NOT_FOUND,
	E_SOME_PERMISSIONS_NOT_FOUND,
	E_RESOURCE_CODE_ALREADY_USED,
	E_ROLE_CODE_ALREADY_USED,
	E_USER_EXTERNAL_ID_ALREADY_USED,
	E_USER_EMAIL_ALREADY_USED,
	E_SYSTEM_ERROR,
	/* Not in the API's own codes; HTTP itself needs them (docs/api.md §"Errors"). */
	E_NOT_FOUND,           /* 404: no such route */
	E_METHOD_NOT_ALLOWED,  /* 405 */
	E_UNAVAILABLE,         /* 503: the hash queue is full */
	E_PAYLOAD_TOO_LARGE,   /* 413: a body over max_body_bytes */
	E_EXPECTATION_FAILED,  /* 417: an Expect other than 100-continue */
	E_NOT_IMPLEMENTED,     /* 501: a method HTTP does not define */
	E_VERSION_NOT_SUPPORTED, /* 505: an HTTP version other than 1.0 and 1.1 */
	E_STORE_UNAVAILABLE,   /* 503 system_error: no usable store connection (docs/operations.md §"A fleet on PostgreSQL") */
	E_THROTTLED,           /* 429 too_many_attempts: past a bound (docs/tokens.md "Limits"), retry_after_s */
	/* The device grant's (RFC 8628 §3.5, docs/device.md): a poll's answers,
	 * and a client not allowed the grant (RFC 6749 §5.2); access_denied is
	 * also a client's access rule refusing the user (docs/signin.md
	 * §"Access rules"), which sign-in answers with a redirect */
	E_AUTHORIZATION_PENDING,
	E_SLOW_DOWN,
	E_ACCESS_DENIED,
	E_EXPIRED_TOKEN,
	E_INVALID_GRANT,
	E_UNAUTHORIZED_CLIENT,
	E_CONSENT_REQUIRED,    /* 403 consent_required: the user must allow the client first (docs/signin.md §"Consent") */
	E__COUNT
};

#define API_ERROR_DESCRIPTION_MAX 160

struct api_error {
	enum api_code api_code;
	const char *code;   /* the spec's string code, static */
	int status;         /* the spec's HTTP status */
	/* one sentence; never a secret */
	char description[API_ERROR_DESCRIPTION_MAX];
	/* 401 from a bearer endpoint: a token was sent (RFC 6750 §3.1 error="invalid_token") */
	int token_was_sent;
	/* 429: seconds until the bound lets the caller through (Retry-After) */
	int retry_after_s;
};

/* Fills *err with the code's string and status and a printf-style sentence.
 * Always returns -1 so that callers can write `return api_fail(err, ...);`. */
int api_fail(struct api_error *err, enum api_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The spec's string of code ("auth_code_already_used"), static. */
const char *api_code_string(enum api_code code);

#endif
