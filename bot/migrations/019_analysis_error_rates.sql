-- Error rates per player and analysed match (issue 24, /stats): one row per seat of a match whose
-- analysis is computed, written in the transaction that saves the analysis, so /stats reads a
-- player's average PR and PR history without opening every analysis's JSON. A PR is 500 × equity_lost
-- / decisions (no PR when decisions is 0). Analyses saved before this migration get their rows the
-- first time /stats reads that player's (bot.store.analyses.AnalysisStore.error_rates).
CREATE TABLE analysis_error_rates (
    match_id    INTEGER NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    decisions   INTEGER NOT NULL,
    equity_lost REAL    NOT NULL,
    PRIMARY KEY (match_id, seat)
);

CREATE INDEX analysis_error_rates_player ON analysis_error_rates (user_id, match_id);
