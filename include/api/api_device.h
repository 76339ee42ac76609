#ifndef EDGEAUTH_API_DEVICE_H
#define EDGEAUTH_API_DEVICE_H
/*
 * The device grant's endpoints (RFC 8628, docs/device.md): POST
 * /api/v1/device_authorization, where a device asks for its codes, and the
 * /device page, where a signed-in user types the code and approves or
 * denies it.
 */
#include <stdbool.h>

#include "flow.h"

extern flow_step *const device_authorization_steps[];
extern flow_step *const device_page_get_steps[];
extern flow_step *const device_page_post_steps[];

/* Whether uri is where the sign-in for the /device page comes back to:
 * issuer + "/device?user_code=" and a normalized code, which the console's
 * sign-in (console.h) may return to as to the console's home. */
bool device_page_return_ok(const char *issuer, const char *uri);

#endif
