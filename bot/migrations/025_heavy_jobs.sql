-- Heavy work as jobs in the database (issue 34, bot/jobs): an analysis of one of our finished matches
-- or of a match file a member sent (`/analyse file:`), queued, run by one process at a time (the bot's
-- own heavy workers, or `python -m bot worker` processes on PostgreSQL), and posted by the bot once.
-- Nothing is lost at a restart: a queued job waits, a running one whose process is gone goes back to
-- the queue, and a file's bytes are kept in its job until it is analysed.
--
-- kind         'analysis' (of our match match_id) or 'file' (of the file file_name, kept in payload)
-- priority     lower first: 0 our own matches' analyses, 1 imported files
-- owner_id     the member who asked (a file's sender; NULL for our matches)
-- payload      a file's bytes, zlib-compressed (bot.store.jobs.pack_file)
-- size         the actions to analyse (a place's estimate: size × seconds per action)
-- state        queued, running, done (computed, result saved), failed (error says why)
-- done, total  the progress of a running analysis: positions judged, and in all
-- message_id   the message that shows the job: our match's result message (its "Analysis:" line), or
--              the private answer to a file (edited through reply_token, the interaction's token)
-- shown        the line last shown there (an edit only when it changes)
-- attempts     how many times a process took it (a lost worker: once more; then failed)
-- worker       the process that runs it (bot.work_claims.OWNER), until lease_until
-- result_id    a file's, once done: its imported_matches row
-- posted       1 once the result (or the failure) was posted or told: exactly once
-- seconds      the work's wall seconds (the estimate's seconds per action come from these)
CREATE TABLE heavy_jobs (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL,
    priority    INTEGER NOT NULL,
    owner_id    INTEGER,
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,
    match_id    INTEGER,
    game        TEXT    NOT NULL,
    file_name   TEXT,
    payload     BLOB,
    size        INTEGER NOT NULL,
    state       TEXT    NOT NULL,
    done        INTEGER NOT NULL DEFAULT 0,
    total       INTEGER NOT NULL DEFAULT 0,
    message_id  INTEGER,
    reply_token TEXT,
    shown       TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    worker      TEXT,
    lease_until REAL,
    error       TEXT,
    result_id   INTEGER,
    posted      INTEGER NOT NULL DEFAULT 0,
    seconds     REAL,
    created_at  REAL    NOT NULL,
    started_at  REAL,
    finished_at REAL
);

CREATE UNIQUE INDEX heavy_jobs_match ON heavy_jobs (match_id) WHERE match_id IS NOT NULL;
CREATE INDEX heavy_jobs_queue ON heavy_jobs (state, priority, id);
CREATE INDEX heavy_jobs_owner ON heavy_jobs (owner_id, state);
