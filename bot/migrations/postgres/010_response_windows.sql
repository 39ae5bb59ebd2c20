-- PostgreSQL: the same migration as ../010_response_windows.sql, in PostgreSQL's types.
-- Response windows (issue 11): a decision by the player not on turn that passes by itself.
--
-- guild_settings.window_seconds  how long a response window waits for its player before it passes
--                                by itself (NULL: the default, 120 s).
-- matches.window_at              when the open response window passes by itself (NULL: none open, or
--                                its clock starts when the board that opens it is shown). A window
--                                has this clock instead of the turn clock: it never forfeits.
-- matches.always_pass            each player's standing answer to windows, a bit per seat (1: seat 0,
--                                2: seat 1): set, the player's windows pass at once; 0: ask them.
ALTER TABLE guild_settings ADD COLUMN window_seconds DOUBLE PRECISION;
ALTER TABLE matches ADD COLUMN window_at DOUBLE PRECISION;
ALTER TABLE matches ADD COLUMN always_pass BIGINT NOT NULL DEFAULT 0;
CREATE INDEX matches_windows ON matches (status, window_at);
