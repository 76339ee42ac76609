-- edgeauth schema, version 27: a role may require a second factor
-- (docs/signin.md §"Second factors"): its users who have none enroll a TOTP
-- factor right after the password, before any code is issued. 0: not
-- required, as every role was before.

ALTER TABLE roles ADD COLUMN requires_second_factor INTEGER NOT NULL DEFAULT 0
	CHECK (requires_second_factor IN (0, 1));
