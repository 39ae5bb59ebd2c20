"""``space``: a backgammon variant on a 28-sector ring with cards (issue 11).

Modules: ``board`` (sectors, planets, units), ``cards`` (the 25 cards, timing, targets), ``fights``
(force totals, keeping units), ``actions`` (actions and their notation), ``game`` (the state, its
phases, the views), ``variant`` (the ``Variant``, saved states). Random games are played by the
generic drivers (``engine.ai.selfplay``: ``selfplay``, ``random_states``; ``bench/selfplay.py``).
Registered in ``engine/registry.py``; its picture is ``render/space.py``, its controls ``cogs/panels/space.py``.

Decisions beyond RULINGS.md "space" (for the players' rules page):

1. Seat 0 is the Evil Empire (it moves first), seat 1 the Terran Defense Force. Units are written
   E1..E15 / T1..T15 in order of decreasing force (E1 the Vindicator, T1 Sol-1).
2. The 50 cards start as a pile that the first shuffle turns into the deck; the Empire is dealt
   five, then the Terrans five, and the Empire's first turn includes its draw of two.
3. The player on turn asks for the roll (``roll``) after any Hyper Jump; the dice then follow at
   once (a chance step with no prompt).
4. A phase in which the rules allow a card waits for the deciding player's ``pass`` whether or not
   the player holds such a card: the response windows (Espionage after the draws and discards, Jam
   Transmission before the move, defense cards in every fight) and the own roll-card, build, move
   and attack steps. The build phase opens whenever the own homeworld is controlled and a unit is in
   the scrap heap (Reinforcements work without doubles); the Jam window whenever the mover has a
   unit on the board.
5. Several attack or defense cards may be played in one fight, several Battle Computers, die
   additions, Reinforcements and Jam Transmissions in one phase, each card once; Espionage closes its
   window. The spy sees the hand as it was when Espionage was played, until the end of that turn.
6. The must-use rule binds plain moves: a move by a die is allowed only if the dice left can still be
   used as fully as plain moves allow. Card moves (Strategic Move, Space Combat Tactics, Hold
   Position) are always allowed. ``pass`` ends the move phase once no plain move can use a die left.
   There is no backgammon "play the larger die" rule when only one die can be used.
7. Defend the Homeworld ends that unit's movement for the turn; it cannot target a unit already on
   its homeworld or a jammed one. Strategic Move moves the units of the sector that are still free
   to move (not jammed, not stopped on an enemy, not after two dice).
8. Die additions may go on any die, the Hyper Jump die too; Battle Computers only rerolls one of the
   two normal dice. A die is named by its value (equal values are interchangeable).
9. The winner of a fight keeps at least one unit ("fewer than allowed" goes down to one).
10. Major Offensive may be played in the own discard, roll, roll-card, build, move and attack steps
    (not while choosing the units to keep); the two discards are any two other cards of the hand.
11. At the end of a turn the four planets are checked first, then a side without units loses.
"""
