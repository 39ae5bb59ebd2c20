-- PostgreSQL: the same migration as ../008_several_matches.sql, in PostgreSQL's types.
-- Several matches at once (issue 9).
-- At most one pending challenge per unordered pair of players, game and place (the channel or thread
-- it was made in): crossed challenges and two Rematch clicks cannot open two. Expired challenges are
-- closed first (Challenges.create), so only a live pending one blocks a new one.
UPDATE challenges SET status = 'expired'
WHERE status = 'pending' AND id NOT IN (
    SELECT MAX(id) FROM challenges WHERE status = 'pending'
    GROUP BY LEAST(challenger_id, opponent_id), GREATEST(challenger_id, opponent_id), game, channel_id
);
CREATE UNIQUE INDEX challenges_one_pending_per_pair ON challenges (
    LEAST(challenger_id, opponent_id), GREATEST(challenger_id, opponent_id), game, channel_id
) WHERE status = 'pending';

-- The result message of a finished match carries its Rematch button until rematch_until; the
-- scheduler then greys it out and clears rematch_until (so it is done once, across restarts).
ALTER TABLE matches ADD COLUMN result_message_id BIGINT;
ALTER TABLE matches ADD COLUMN rematch_until DOUBLE PRECISION;
CREATE INDEX matches_rematches ON matches (rematch_until);
