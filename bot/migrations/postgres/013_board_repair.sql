-- PostgreSQL: the same migration as ../013_board_repair.sql, in PostgreSQL's types.
-- What the players see is always the saved match (issue 21): boards repaired with a backoff kept here,
-- boards asked for again, and a finished match's rematch.
--
-- show_tries   failed attempts in a row at bringing the board up to date (0: none, or it is shown).
-- show_after   when the scheduler tries that board again (NULL: at once). Each failure pushes it further
--              out (bot.board_repair.BACKOFF), so boards that cannot be posted never starve the others.
-- redraw       1: the board must be drawn again although nothing was committed (its deadline moved after
--              downtime, or /board asked for it as a new message: then new_board is 1 too).
-- reposts      how many times the board was asked for again as a new message (/board); part of the nonce
--              that makes a repeated post of the same board return the first message instead of a second.
-- rematch_id   the match that rematched this finished one (NULL: none yet); its Rematch button is greyed out.
ALTER TABLE matches ADD COLUMN show_tries BIGINT NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN show_after DOUBLE PRECISION;
ALTER TABLE matches ADD COLUMN redraw BIGINT NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN reposts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN rematch_id BIGINT REFERENCES matches (id);
DROP INDEX matches_unshown;
CREATE INDEX matches_behind ON matches (show_tries, show_after)
WHERE shown_version IS NULL OR shown_version < board_version OR redraw = 1;
