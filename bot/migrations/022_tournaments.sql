-- Tournaments (issue 26): a server's knockout or Swiss event, from sign-up to champion. The rules
-- (pairings, results, standings) are one JSON text, engine.tournament.Tournament.to_json; the
-- columns around it are what the bot looks up: where it is shown, its deadlines and its status.
--
-- tournaments
--   guild_id, channel_id   where it was created; message_id its announcement (Join / Leave / Start);
--                          each pairing's match opens its own thread (tournament_matches)
--   name, game, options    what is played: the game's options as the challenge checks them (JSON)
--   format, rounds         'knockout' | 'swiss'; rounds asked for (Swiss; NULL: the default)
--   signup_until           when sign-up closes by itself (NULL: only by Start)
--   round_seconds          how long each round may last, from its pairing
--   round_until            when the current round's deadline falls (NULL: not running)
--   state                  Tournament.to_json once started (NULL while signing up)
--   status                 'signup' | 'running' | 'paused' | 'finished' | 'cancelled'
--   version                raised by every change: writes are compare-and-set on it, so two results
--                          arriving at once pair the next round exactly once
--   paused_left            while paused, the seconds the round had left
--   announced              1 once the champion was announced in the results channel
CREATE TABLE tournaments (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    message_id    INTEGER,
    name          TEXT    NOT NULL,
    game          TEXT    NOT NULL,
    options       TEXT    NOT NULL,
    format        TEXT    NOT NULL,
    rounds        INTEGER,
    signup_until  REAL,
    round_seconds REAL    NOT NULL,
    round_until   REAL,
    state         TEXT,
    status        TEXT    NOT NULL,
    version       INTEGER NOT NULL DEFAULT 0,
    paused_left   REAL,
    announced     INTEGER NOT NULL DEFAULT 0,
    created_by    INTEGER NOT NULL,
    created_at    REAL    NOT NULL,
    updated_at    REAL    NOT NULL
);
CREATE INDEX tournaments_open ON tournaments (status);

-- Entrants while signing up (and kept after: the sign-up order breaks rating ties), with the name
-- they had on the server when they joined (the pictures show it, also after a restart).
CREATE TABLE tournament_entrants (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    user_id       INTEGER NOT NULL,
    joined_at     REAL    NOT NULL,
    name          TEXT    NOT NULL,
    PRIMARY KEY (tournament_id, user_id)
);

-- Each pairing's match, made once: the row is inserted first (the claim, match_id NULL), then the
-- match is made and linked. A claim whose match was never made (the process died in between) is
-- dropped after a while and taken again. recorded: 1 once the tournament took the match's result.
-- opened_at: the match's version when it was made (its opening chance steps): a later version means
-- a player has moved, which decides how the round's deadline ends it.
CREATE TABLE tournament_matches (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    match_id      INTEGER,
    claimed_at    REAL    NOT NULL,
    recorded      INTEGER NOT NULL DEFAULT 0,
    opened_at     INTEGER,
    PRIMARY KEY (tournament_id, round, table_no)
);
CREATE UNIQUE INDEX tournament_matches_match ON tournament_matches (match_id);
