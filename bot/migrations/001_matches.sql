-- Matches, their full action logs, results and challenges.
CREATE TABLE challenges (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER,
    channel_id    INTEGER NOT NULL,
    message_id    INTEGER,
    challenger_id INTEGER NOT NULL,
    opponent_id   INTEGER NOT NULL,
    game          TEXT    NOT NULL,
    options       TEXT    NOT NULL,
    rated         INTEGER NOT NULL DEFAULT 1,
    status        TEXT    NOT NULL CHECK (status IN ('pending', 'accepted', 'declined', 'cancelled', 'expired')),
    match_id      INTEGER,
    created_at    REAL    NOT NULL,
    expires_at    REAL    NOT NULL
);
CREATE INDEX challenges_pending ON challenges (status, expires_at);

CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,   -- where the match is played: a thread or a channel
    parent_id   INTEGER,            -- the channel a thread belongs to
    game        TEXT    NOT NULL,
    options     TEXT    NOT NULL,   -- canonical JSON
    player0     INTEGER NOT NULL,
    player1     INTEGER NOT NULL,
    state       TEXT    NOT NULL,   -- canonical JSON of the engine state
    version     INTEGER NOT NULL,   -- number of actions applied; in every component's custom id
    status      TEXT    NOT NULL CHECK (status IN ('active', 'finished', 'abandoned')),
    message_id  INTEGER,            -- the board message that carries the live controls
    rated       INTEGER NOT NULL DEFAULT 1,
    created_at  REAL    NOT NULL,
    updated_at  REAL    NOT NULL,
    finished_at REAL
);
CREATE INDEX matches_active ON matches (status, channel_id);

CREATE TABLE actions (
    match_id   INTEGER NOT NULL REFERENCES matches (id),
    seq        INTEGER NOT NULL,     -- 1, 2, ...: equals the match version after this action
    seat       INTEGER,              -- NULL for chance outcomes (dice)
    notation   TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    PRIMARY KEY (match_id, seq)
);

CREATE TABLE results (
    match_id    INTEGER PRIMARY KEY REFERENCES matches (id),
    winner_seat INTEGER,
    reason      TEXT    NOT NULL,
    description TEXT    NOT NULL,
    points      INTEGER NOT NULL,
    length      INTEGER NOT NULL,
    finished_at REAL    NOT NULL
);
