-- Per-player preferences (issue 24): how the bot plays for a person, whatever the server ("my
-- settings" follow the player, as on Backgammon Galaxy). One row per player and preference, so a
-- game adds its own keys without a migration; a player without a row has the defaults
-- (bot.settings.PREFERENCES says which keys and values exist).
--
-- user_id  the player's Discord user id
-- key      the preference, named by its game: 'backgammon.auto_roll', 'backgammon.auto_confirm'
-- value    its value as text ('on' / 'off')
-- updated  when it was last changed
CREATE TABLE player_preferences (
    user_id INTEGER NOT NULL,
    key     TEXT    NOT NULL,
    value   TEXT    NOT NULL,
    updated REAL    NOT NULL,
    PRIMARY KEY (user_id, key)
);
