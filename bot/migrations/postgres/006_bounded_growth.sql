-- PostgreSQL: the same migration as ../006_bounded_growth.sql, in PostgreSQL's types.
-- Bounded growth: matches found by player, compacted action logs of old finished matches, and the
-- closed challenges that housekeeping purges.

-- /history and a player's active matches: "player0 = ? OR player1 = ?" uses both (an OR of indexes).
CREATE INDEX matches_player0 ON matches (player0, created_at);
CREATE INDEX matches_player1 ON matches (player1, created_at);

-- The action log of a finished match once compacted: zlib-compressed UTF-8 lines "<seat> <notation>"
-- ("-" for a chance outcome), in order. Its rows in `actions` are deleted in the same transaction.
-- NULL: the log is still in `actions`.
ALTER TABLE matches ADD COLUMN compact_log BYTEA;
CREATE INDEX matches_to_compact ON matches (finished_at) WHERE status != 'active' AND compact_log IS NULL;

-- Closed challenges, by when they would have expired (every one is closed by then), for the purge.
CREATE INDEX challenges_closed ON challenges (expires_at) WHERE status != 'pending';
