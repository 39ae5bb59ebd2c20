-- Per-server settings, turn-clock deadlines on matches, rematch challenges.
CREATE TABLE guild_settings (
    guild_id          INTEGER PRIMARY KEY,
    reminder_seconds  REAL,            -- NULL: the default (12 h)
    timeout_seconds   REAL,            -- NULL: the default (48 h)
    challenge_seconds REAL,            -- NULL: the default (10 min)
    allowed_games     TEXT,            -- JSON list of game keys; NULL: every game
    use_threads       INTEGER,         -- NULL: yes
    results_channel   INTEGER          -- NULL: results are only posted in the match
);

-- Deadlines of the player whose decision the match waits for; NULL when none is pending.
ALTER TABLE matches ADD COLUMN reminder_at REAL;
ALTER TABLE matches ADD COLUMN timeout_at REAL;
CREATE INDEX matches_reminders ON matches (status, reminder_at);
CREATE INDEX matches_timeouts ON matches (status, timeout_at);

ALTER TABLE challenges ADD COLUMN rematch_of INTEGER REFERENCES matches (id);
