-- When the bot was last known to be running, so that time while it was down can be given back to
-- the players whose turn clocks ran meanwhile (see DeadlineStore.forgive_downtime).
CREATE TABLE heartbeat (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    alive_at REAL NOT NULL
);
