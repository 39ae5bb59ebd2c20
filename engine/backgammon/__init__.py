"""Classic backgammon: board, legal plays, notation, one game without cube, and
the GNU Backgammon / eXtreme Gammon interchange formats. Rule sets standard, nackgammon, oldenglish."""
