-- edgeauth schema, version 16: how a session's user proved who they are.
--
-- amr (RFC 8176), space-separated: 'pwd' for a password, 'pwd otp mfa'
-- for a password and a TOTP code (docs/signin.md §"Second factors"). Each
-- sign-in that starts or renews the session sets it; the ID tokens of its
-- sign-ins carry it. Sessions of older versions were all by password.
ALTER TABLE sessions ADD COLUMN amr TEXT NOT NULL DEFAULT 'pwd';
