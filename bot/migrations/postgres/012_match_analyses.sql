-- PostgreSQL: the same migration as ../012_match_analyses.sql, in PostgreSQL's types.
-- Analyses of finished matches (issue 12, hints and analysis): one row per finished match of a game
-- with an analysis (engine.ai.coaches.ANALYSES), written before its result is posted. 'pending' until
-- computed; 'done' with the analysis (JSON, engine.ai.coaching) until it is posted; 'posted' with the
-- message that shows it; 'failed' when it cannot be computed (logged). Open rows ('pending', 'done')
-- are taken up again at start-up, so a restart loses no analysis.
CREATE TABLE match_analyses (
    match_id BIGINT PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    status TEXT NOT NULL CHECK (status IN ('pending', 'done', 'posted', 'failed')),
    requested_at DOUBLE PRECISION NOT NULL,
    computed_at DOUBLE PRECISION,
    analysis TEXT,
    message_id BIGINT
);

CREATE INDEX match_analyses_open ON match_analyses (status) WHERE status IN ('pending', 'done');
