-- PostgreSQL: the same migration as ../004_rating_history_by_match.sql, in PostgreSQL's types.
-- The result message reads a match's rating changes by match id.
CREATE INDEX rating_history_match ON rating_history (match_id);
