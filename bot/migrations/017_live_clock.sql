-- A live clock per match (issue 24), as on Backgammon Galaxy: a reserve per player for the whole match
-- and a delay per decision, used first. Without one (clock_delay NULL) each turn has the server's
-- deadline, as before.
--
-- clock_delay    seconds of delay per decision (NULL: the match has no live clock).
-- clock_left0/1  each seat's reserve left, in seconds, charged when an action is saved.
-- clock_seat     the seat whose clock runs (NULL: none runs: the computer's turn, a board not shown yet).
-- clock_since    when it started: the board that asks that seat was shown. Moved on, like timeout_at, by
--                the time the bot was down, so downtime is charged to nobody.
ALTER TABLE matches ADD COLUMN clock_delay REAL;
ALTER TABLE matches ADD COLUMN clock_left0 REAL;
ALTER TABLE matches ADD COLUMN clock_left1 REAL;
ALTER TABLE matches ADD COLUMN clock_seat INTEGER;
ALTER TABLE matches ADD COLUMN clock_since REAL;
