"""Heavy work as jobs (issue 34): analyses of our finished matches and of imported match files, and
replays (``bot.replays``: lanes of their own in the bot, the GIF kept in the job until posted), kept
in the database with an owner, a priority and a state (``bot.store.jobs``), so that a restart loses
none; run by ``runner.JobRunner`` in the bot's own heavy worker processes (SQLite, and PostgreSQL too)
and in ``python -m bot worker`` processes on any machine that reaches PostgreSQL (``worker``,
dispatched by pgqueuer: ``pgqueue``); posted and shown by the bot (``bot.analyses``). ``places``: a
queued job's place and estimate, and the words that show a job to its asker."""
