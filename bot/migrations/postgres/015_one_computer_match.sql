-- PostgreSQL: the same migration as ../015_one_computer_match.sql, in PostgreSQL's types.
-- One match against the computer per player and place (issue 22): the rule is the database's, so two
-- quick /challenge commands (or two processes) can never both start one.
--
-- human   the person in a match against the computer (NULL: a match between people, or one saved
--         before this migration: the bot's own user id is not known here to tell which seat it held).
-- place   the channel a match belongs to: its thread's parent once it is in a thread, else its channel
--         (COALESCE(parent_id, channel_id), the same before and after its thread is opened).
ALTER TABLE matches ADD COLUMN human BIGINT;
CREATE UNIQUE INDEX one_computer_match ON matches (human, COALESCE(parent_id, channel_id))
WHERE status = 'active' AND human IS NOT NULL;
