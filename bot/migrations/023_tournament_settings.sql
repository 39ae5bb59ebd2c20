-- Tournament settings of a server (issue 26).
--
-- organiser_role    a role whose members may create, start, pause, resume and cancel tournaments and
--                   set their results, besides those with Manage Server (NULL: none)
-- tournament_rated  whether tournament matches count for the server's ratings (NULL: yes)
ALTER TABLE guild_settings ADD COLUMN organiser_role INTEGER;
ALTER TABLE guild_settings ADD COLUMN tournament_rated INTEGER;
