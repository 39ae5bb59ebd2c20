-- PostgreSQL: the same migration as ../003_clock_settings.sql, in PostgreSQL's types.
-- Per-server settings, turn-clock deadlines on matches, rematch challenges.
CREATE TABLE guild_settings (
    guild_id          BIGINT PRIMARY KEY,
    reminder_seconds  DOUBLE PRECISION,            -- NULL: the default (12 h)
    timeout_seconds   DOUBLE PRECISION,            -- NULL: the default (48 h)
    challenge_seconds DOUBLE PRECISION,            -- NULL: the default (10 min)
    allowed_games     TEXT,            -- JSON list of game keys; NULL: every game
    use_threads       BIGINT,         -- NULL: yes
    results_channel   BIGINT          -- NULL: results are only posted in the match
);

-- Deadlines of the player whose decision the match waits for; NULL when none is pending.
ALTER TABLE matches ADD COLUMN reminder_at DOUBLE PRECISION;
ALTER TABLE matches ADD COLUMN timeout_at DOUBLE PRECISION;
CREATE INDEX matches_reminders ON matches (status, reminder_at);
CREATE INDEX matches_timeouts ON matches (status, timeout_at);

ALTER TABLE challenges ADD COLUMN rematch_of BIGINT REFERENCES matches (id);
