/* The error table of docs/api.md §"Errors": each code's string and HTTP status, in one place. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

static const struct {
	const char *code;
	int status;
} api_codes[E__COUNT] = {
	[E_INVALID_PARAMS] = { "invalid_params", 400 },
	[E_INVALID_CLIENT] = { "invalid_client", 400 },
	[E_CLIENT_NOT_ACTIVE] = { "client_not_active", 400 },
	[E_PROJECT_NOT_ACTIVE] = { "project_not_active", 400 },
	[E_INVALID_AUTHORIZATION_CODE] = { "invalid_authorization_code", 400 },
	[E_DIFFERENT_AUTHORIZE_REDIRECT_URI] = { "different_authorize_redirect_uri", 400 },
	[E_AUTH_CODE_ALREADY_USED] = { "auth_code_already_used", 400 },
	[E_AUTH_CODE_EXPIRED] = { "auth_code_expired", 400 },
	[E_INVALID_CODE_VERIFIER] = { "invalid_code_verifier", 400 },
	[E_INVALID_REFRESH_TOKEN] = { "invalid_refresh_token", 400 },
	[E_REFRESH_TOKEN_EXPIRED] = { "refresh_token_expired", 400 },
	[E_REFRESH_TOKEN_ALREADY_USED] = { "refresh_token_already_used", 400 },
	[E_INVALID_CLIENT_CREDENTIALS] = { "invalid_client_credentials", 401 },
	[E_INVALID_AUTHORIZATION_TOKEN] = { "invalid_authorization_token", 401 },
	[E_INSUFFICIENT_PERMISSION] = { "insufficient_permission", 403 },
	[E_PROJECT_NOT_FOUND] = { "project_not_found", 404 },
	[E_RESOURCE_NOT_FOUND] = { "resource_not_found", 404 },
	[E_ROLE_NOT_FOUND] = { "role_not_found", 404 },
	[E_USER_NOT_FOUND] = { "user_not_found", 404 },
	[E_CLIENT_NOT_FOUND] = { "client_not_found", 404 },
	[E_SOME_PERMISSIONS_NOT_FOUND] = { "some_permissions_not_found", 404 },
	[E_RESOURCE_CODE_ALREADY_USED] = { "resource_code_already_used", 409 },
	[E_ROLE_CODE_ALREADY_USED] = { "role_code_already_used", 409 },
	[E_USER_EXTERNAL_ID_ALREADY_USED] = { "user_external_id_already_used", 409 },
	[E_USER_EMAIL_ALREADY_USED] = { "user_email_already_used", 409 },
	[E_SYSTEM_ERROR] = { "system_error", 500 },
	[E_NOT_FOUND] = { "not_found", 404 },
	[E_METHOD_NOT_ALLOWED] = { "method_not_allowed", 405 },
	[E_UNAVAILABLE] = { "temporarily_unavailable", 503 },
	[E_PAYLOAD_TOO_LARGE] = { "payload_too_large", 413 },
	[E_EXPECTATION_FAILED] = { "expectation_failed", 417 },
	[E_NOT_IMPLEMENTED] = { "not_implemented", 501 },
	[E_VERSION_NOT_SUPPORTED] = { "http_version_not_supported", 505 },
	[E_STORE_UNAVAILABLE] = { "system_error", 503 },
	[E_THROTTLED] = { "too_many_attempts", 429 },
	[E_AUTHORIZATION_PENDING] = { "authorization_pending", 400 },
	[E_SLOW_DOWN] = { "slow_down", 400 },
	[E_ACCESS_DENIED] = { "access_denied", 400 },
	[E_EXPIRED_TOKEN] = { "expired_token", 400 },
	[E_INVALID_GRANT] = { "invalid_grant", 400 },
	[E_UNAUTHORIZED_CLIENT] = { "unauthorized_client", 400 },
	[E_CONSENT_REQUIRED] = { "consent_required", 403 },
};

int api_fail(struct api_error *err, enum api_code code, const char *fmt, ...)
{
	va_list ap;

	if (code >= E__COUNT)
		code = E_SYSTEM_ERROR;
	err->api_code = code;
	err->code = api_codes[code].code;
	err->status = api_codes[code].status;
	err->retry_after_s = 0;
	va_start(ap, fmt);
	vsnprintf(err->description, sizeof err->description, fmt, ap);
	va_end(ap);
	return -1;
}

const char *api_code_string(enum api_code code)
{
	return api_codes[code].code;
}
