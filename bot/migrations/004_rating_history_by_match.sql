-- The result message reads a match's rating changes by match id.
CREATE INDEX rating_history_match ON rating_history (match_id);
