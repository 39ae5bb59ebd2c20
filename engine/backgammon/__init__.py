"""Classic backgammon: board, legal plays and notation (rule sets standard, nackgammon, oldenglish)."""
