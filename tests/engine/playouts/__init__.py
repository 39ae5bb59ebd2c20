"""Each game's part of the random playouts (``tests/engine/test_playouts.py``), one module per game
named by its key, all optional: ``check(state)``, the game's invariants, run at every step;
``OPTIONS``, the options its playouts go through in turn; ``QUICK_GAMES`` and ``SLOW_GAMES``, how
many games the everyday and the slow run play (long games play fewer)."""
