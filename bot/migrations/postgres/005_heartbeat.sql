-- PostgreSQL: the same migration as ../005_heartbeat.sql, in PostgreSQL's types.
-- When the bot was last known to be running, so that time while it was down can be given back to
-- the players whose turn clocks ran meanwhile (see DeadlineStore.forgive_downtime).
CREATE TABLE heartbeat (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    alive_at DOUBLE PRECISION NOT NULL
);
