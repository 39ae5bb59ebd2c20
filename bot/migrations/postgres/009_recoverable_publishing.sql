-- PostgreSQL: the same migration as ../009_recoverable_publishing.sql, in PostgreSQL's types.
-- Recoverable publishing and turns that can be taken back (issues 8 and 9).
--
-- version        every change of the match: committed actions, and the steps of a turn in progress
--                (draft) taken or taken back; controls carry it, so an older control is refused.
-- board_version  the version of the last committed change: what the public board must show.
-- shown_version  the board_version the visible board message shows (NULL: none shown yet). Whatever
--                is saved but not shown (shown_version < board_version) is shown again: at start-up,
--                by the scheduler's retry, and when someone clicks a control that is behind.
-- new_board      1: the board still to show is a new message (the decision passed to someone else,
--                or the match ended), not an edit of the current one.
-- board_steps    JSON: the steps the board still to show (or shown) describes.
-- turn_steps     JSON: the committed steps of the turn in progress.
-- draft          JSON: the notations of the steps of the turn in progress not yet final (they can be
--                taken back; the opponent never sees them).
-- thread_name    the thread the match is to be played in, not yet opened (NULL: none to open).
-- thread_on      the message the thread opens on (the challenge), if any.
ALTER TABLE matches ADD COLUMN board_version BIGINT;
ALTER TABLE matches ADD COLUMN shown_version BIGINT;
ALTER TABLE matches ADD COLUMN new_board BIGINT NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN board_steps TEXT;
ALTER TABLE matches ADD COLUMN turn_steps TEXT;
ALTER TABLE matches ADD COLUMN draft TEXT;
ALTER TABLE matches ADD COLUMN thread_name TEXT;
ALTER TABLE matches ADD COLUMN thread_on BIGINT;
-- Matches saved before this migration were shown as they were saved.
UPDATE matches SET board_version = version, shown_version = version;
CREATE INDEX matches_unshown ON matches (id) WHERE shown_version IS NULL OR shown_version < board_version;
