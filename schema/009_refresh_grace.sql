-- edgeauth schema, version 9: the refresh grace of docs/tokens.md §"Refresh grace".
--
-- A rotation records the token it issued in the row of the token it used
-- up, so that a repeat of the used token within [tokens]
-- refresh_reuse_grace_s can find that successor by its key and take it
-- back, if still unused, with the same single-use statement form as every
-- use: UPDATE ... WHERE used_at IS NULL AND revoked_at IS NULL on the
-- successor's row. A use of the successor and a repeat of its predecessor
-- race for that one row, so across processes too exactly one of them wins.
-- NULL: not rotated, or rotated before version 9 (no grace then).

ALTER TABLE refresh_tokens ADD COLUMN successor_hash TEXT;
