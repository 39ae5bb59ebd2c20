-- Matches played elsewhere and analysed here (issue 24, `/analyse file:`): one row per file analysed,
-- so the analysis message's Review button can page through its decisions as it does for our own
-- matches. Kept apart from `matches`: history, ratings and PR are our own matches'. The action log
-- (the match replayed here, one notation a line) and the analysis (JSON, engine.ai.coaching) are
-- kept zlib-compressed; rows older than bot.housekeeping's KEEP_IMPORTS_FOR are deleted.
CREATE TABLE imported_matches (
    id         INTEGER PRIMARY KEY,
    guild_id   INTEGER,
    channel_id INTEGER NOT NULL,
    sender_id  INTEGER NOT NULL,
    game       TEXT    NOT NULL,
    file_name  TEXT    NOT NULL,
    names      TEXT    NOT NULL,
    options    TEXT    NOT NULL,
    log        BLOB    NOT NULL,
    analysis   BLOB    NOT NULL,
    message_id INTEGER,
    created_at REAL    NOT NULL
);

CREATE INDEX imported_matches_created ON imported_matches (created_at);
