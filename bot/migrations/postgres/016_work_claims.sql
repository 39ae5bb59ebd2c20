-- PostgreSQL: the same migration as ../016_work_claims.sql, in PostgreSQL's types.
-- Work claimed by one bot process at a time (issue 23). With several processes on one database, a
-- piece of scheduled work (a board to bring up to date, an analysis to compute and post,
-- housekeeping) is taken by one process for a lease (bot.work_claims): the others pass it by. A
-- process that dies holds its claims only until their lease runs out; then another may take them.
--
-- kind   what is claimed: 'board', 'analysis', 'housekeeping'
-- item   of what: a match id (0 for housekeeping)
-- owner  the process that holds it (host, process id and a random part: bot.work_claims.OWNER)
-- until  when the lease runs out
CREATE TABLE work_claims (
    kind  TEXT    NOT NULL,
    item  BIGINT  NOT NULL,
    owner TEXT    NOT NULL,
    until DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (kind, item)
);
