-- PostgreSQL: the same migration as ../014_compact_analyses.sql, in PostgreSQL's types.
-- Bounded growth of analyses (issue 21): an analysis posted more than a week ago (bot.housekeeping,
-- COMPACT_AFTER) is kept compressed. Its JSON moves into `compact` (zlib) and `analysis` becomes
-- NULL; nothing is dropped (every decision stays, for a review of the match), and the store reads
-- either form the same. Analyses still to post are never compressed.
ALTER TABLE match_analyses ADD COLUMN compact BYTEA;

CREATE INDEX match_analyses_to_compact ON match_analyses (computed_at)
    WHERE status = 'posted' AND analysis IS NOT NULL;
