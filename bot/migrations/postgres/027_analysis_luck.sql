-- PostgreSQL: the same migration as ../027_analysis_luck.sql, in PostgreSQL's types.
-- Luck per player and analysed match (issue 36, /stats): beside each player's error rate, their dice
-- luck and luck-adjusted result as GNU Backgammon counts them (engine/ai/backgammon_luck.py), in the
-- result's units: match winning chances in a match (luck_unit 'mwc', 0.05 = 5%), points in a money
-- session ('points', over `games` games). NULL for analyses saved before luck was kept.
ALTER TABLE analysis_error_rates ADD COLUMN luck DOUBLE PRECISION;
ALTER TABLE analysis_error_rates ADD COLUMN luck_adjusted DOUBLE PRECISION;
ALTER TABLE analysis_error_rates ADD COLUMN luck_unit TEXT;
ALTER TABLE analysis_error_rates ADD COLUMN games INTEGER;
