-- PostgreSQL: the same migration as ../002_ratings.sql, in PostgreSQL's types.
-- FIBS-style ratings, per server (guild) and per game. Matches outside a server are not rated.
-- Rows are written in the transaction that records a rated match's result (see Store._rate_match).
CREATE TABLE ratings (
    guild_id   BIGINT NOT NULL,
    game       TEXT    NOT NULL,
    user_id    BIGINT NOT NULL,
    rating     DOUBLE PRECISION    NOT NULL DEFAULT 1500,
    experience BIGINT NOT NULL DEFAULT 0,   -- sum of the lengths of the rated matches played
    wins       BIGINT NOT NULL DEFAULT 0,
    losses     BIGINT NOT NULL DEFAULT 0,
    streak     BIGINT NOT NULL DEFAULT 0,   -- > 0: wins in a row, < 0: losses in a row
    updated_at DOUBLE PRECISION    NOT NULL,
    PRIMARY KEY (guild_id, game, user_id)
);
CREATE INDEX ratings_board ON ratings (guild_id, game, rating DESC);

CREATE TABLE rating_history (
    match_id BIGINT NOT NULL REFERENCES matches (id),
    guild_id BIGINT NOT NULL,
    game     TEXT    NOT NULL,
    user_id  BIGINT NOT NULL,
    before   DOUBLE PRECISION    NOT NULL,   -- the rating before the match
    after    DOUBLE PRECISION    NOT NULL,   -- and after it
    at       DOUBLE PRECISION    NOT NULL,
    PRIMARY KEY (match_id, user_id)
);
CREATE INDEX rating_history_player ON rating_history (guild_id, game, user_id, at);
CREATE INDEX rating_history_user ON rating_history (user_id, at);
