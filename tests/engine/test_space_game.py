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


def test_a_state_is_immutable_and_its_fields_are_declared_once() -> None:
    """``SpaceState`` is the working copy's fields frozen: assignment is refused, ``replace`` and
    pickling give equal states, and the listed legal actions kept with a state are no part of it."""
    import pickle
    from dataclasses import FrozenInstanceError, fields, replace

    import pytest

    from engine.space.game import Phase as P
    from engine.space.game import SpaceState
    from engine.space.state import Table
    from tests.engine.space_helpers import make_state as make

    state = make({"E1": 5, "T1": 9}, phase=P.MOVE, dice=(3, 4))
    with pytest.raises(FrozenInstanceError):
        state.phase = P.OVER
    assert [f.name for f in fields(SpaceState)] == [f.name for f in fields(Table)]
    assert "positions" not in SpaceState.__dict__  # the slots are the working copy's own
    fresh = replace(state)
    state.legal_actions()
    assert state.listed is not None and fresh.listed is None
    assert fresh == state and hash(fresh) == hash(state)
    assert isinstance(fresh, SpaceState) and replace(state, turn_number=6).turn_number == 6
    again = pickle.loads(pickle.dumps(state))
    assert again == state and type(again) is SpaceState
    moved = state.apply(state.legal_actions()[0])
    assert type(moved) is SpaceState and moved != state
    with pytest.raises(FrozenInstanceError):
        moved.positions = ()
