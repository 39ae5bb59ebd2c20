-- A live clock gives back every second the bot was not running (issue 33), so the heartbeat says
-- more exactly when that was (see DeadlineStore.forgive_downtime):
--
-- stopped   1: the bot stopped taking clicks at alive_at, knowingly (a SIGTERM's draining began, or it
--           was started but not connected to Discord yet): downtime counts from alive_at exactly.
--           0: it was running then, and beats again a second later while a live clock runs
--           (app.client.LIVE_BEAT): after a kill -9, downtime counts from one beat later.
--
-- matches_live_clocks: the running live clocks (clock_since is set only while one runs), which the
-- heartbeat looks for every second.
ALTER TABLE heartbeat ADD COLUMN stopped INTEGER NOT NULL DEFAULT 0;
CREATE INDEX matches_live_clocks ON matches (clock_since) WHERE clock_since IS NOT NULL;
