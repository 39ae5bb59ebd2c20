-- FIBS-style ratings, per server (guild) and per game. Matches outside a server are not rated.
-- Rows are written in the transaction that records a rated match's result (see Store._rate_match).
CREATE TABLE ratings (
    guild_id   INTEGER NOT NULL,
    game       TEXT    NOT NULL,
    user_id    INTEGER NOT NULL,
    rating     REAL    NOT NULL DEFAULT 1500,
    experience INTEGER NOT NULL DEFAULT 0,   -- sum of the lengths of the rated matches played
    wins       INTEGER NOT NULL DEFAULT 0,
    losses     INTEGER NOT NULL DEFAULT 0,
    streak     INTEGER NOT NULL DEFAULT 0,   -- > 0: wins in a row, < 0: losses in a row
    updated_at REAL    NOT NULL,
    PRIMARY KEY (guild_id, game, user_id)
);
CREATE INDEX ratings_board ON ratings (guild_id, game, rating DESC);

CREATE TABLE rating_history (
    match_id INTEGER NOT NULL REFERENCES matches (id),
    guild_id INTEGER NOT NULL,
    game     TEXT    NOT NULL,
    user_id  INTEGER NOT NULL,
    before   REAL    NOT NULL,   -- the rating before the match
    after    REAL    NOT NULL,   -- and after it
    at       REAL    NOT NULL,
    PRIMARY KEY (match_id, user_id)
);
CREATE INDEX rating_history_player ON rating_history (guild_id, game, user_id, at);
CREATE INDEX rating_history_user ON rating_history (user_id, at);
