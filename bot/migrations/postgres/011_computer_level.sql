-- PostgreSQL: the same migration as ../011_computer_level.sql, in PostgreSQL's types.
-- The computer's level in a match against the computer (issue 12): 'easy', 'medium' or 'hard'.
-- NULL: a match between people, a match saved before levels, or a game whose computer has no levels
-- yet; the computer then plays the game's one registered player (engine.ai.players.PLAYERS).
ALTER TABLE matches ADD COLUMN computer_level TEXT;
