def test_response_windows_are_declined_by_pass_and_own_phases_have_no_window_pass() -> None:
    """``window_pass`` (the bot's answer when a window's time runs out) is ``pass`` in the three
    response windows of the player not on turn, and nothing in the player's own phases."""
    from engine.space.actions import Pass as PassAction
    from engine.space.game import Phase as P
    from tests.engine.space_helpers import make_state as make

    for phase in (P.ESPIONAGE, P.JAM, P.DEFEND):
        state = make({"E1": 5, "T1": 9}, phase=phase, dice=(3, 4), fight_sector=5)
        assert state.window_pass() == PassAction()
        assert state.to_move() == 1 - state.turn_seat
    for phase in (P.ROLL_CARDS, P.BUILD, P.MOVE, P.ATTACK, P.DISCARD):
        assert make({"E1": 5, "T1": 9}, phase=phase, dice=(3, 4)).window_pass() is None
