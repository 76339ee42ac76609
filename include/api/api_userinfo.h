#ifndef EDGEAUTH_API_USERINFO_H
#define EDGEAUTH_API_USERINFO_H
/* GET and POST /api/v1/userinfo (OpenID Connect Core §5.3, docs/signin.md §"UserInfo"). */
#include "flow.h"

extern flow_step *const userinfo_steps[];

#endif
