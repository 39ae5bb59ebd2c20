-- Rollouts (issue 36, bot/rollouts.py): the most games a `/rollout` on this server plays per candidate.
--
-- rollout_trials  games per candidate at most, a multiple of 36 (NULL: GuildSettings' default, 648)
ALTER TABLE guild_settings ADD COLUMN rollout_trials INTEGER;
