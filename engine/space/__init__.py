"""``space``: a backgammon variant on a 28-sector ring with cards (issue 11, engine only)."""
