-- Replays as heavy jobs (issue 34, bot/replays.py): `/replay` queues a job of kind 'replay' in
-- heavy_jobs, the same queue as the analyses, within its own limits (per member, per server, in all);
-- the bot's heavy workers make the GIF, which is kept in the job until the bot has posted it once.
--
-- replay_of  the match replayed (match_id stays the analysis's: one analysis job per match)
-- result     the GIF made, until it is posted (then NULL)
-- detail     JSON: what the job needs and tells (a replay's names, file size limit, frames shown)
-- priority   0 our matches' analyses, 1 replays (a member is waiting, seconds of work), 2 files
ALTER TABLE heavy_jobs ADD COLUMN replay_of INTEGER;
ALTER TABLE heavy_jobs ADD COLUMN result BLOB;
ALTER TABLE heavy_jobs ADD COLUMN detail TEXT;
UPDATE heavy_jobs SET priority = 2 WHERE kind = 'file';
