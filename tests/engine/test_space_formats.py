"""Space notation (round trips, clear errors) and saved states (round trips, corrupt ones refused)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.errors import CorruptStateError, IllegalActionError, NotationError
from engine.protocol import CHANCE, Action, ChanceKind, replay
from engine.space import cards as C
from engine.space.actions import Build, Dice, Discard, Keep, Move, Pass, Play, RollDice, Shuffle
from engine.space.game import Phase
from engine.space.variant import VARIANT
from tests.engine.space_helpers import make_state, play, random_playout, units

E5, T3 = units("E5", "T3")

EXAMPLES = [
    ("shuffle 2,0,1", Shuffle((2, 0, 1))),
    ("roll 3-5", Dice((3, 5))),
    ("roll 3-5-2", Dice((3, 5, 2))),
    ("roll 4", Dice((4,))),
    ("roll", RollDice()),
    ("pass", Pass()),
    ("discard nova-bomb", Discard(C.NOVA_BOMB.kind)),
    ("build T3", Build(T3)),
    ("move E5 by 9", Move(E5, 9)),
    ("keep E5 T3", Keep((E5, T3))),
    ("play hyper-jump", Play(C.HYPER_JUMP.kind)),
    ("play ion-thrusters on 3", Play(C.ION_THRUSTERS.kind, die=3)),
    ("play battle-computers on 6", Play(C.BATTLE_COMPUTERS.kind, die=6)),
    ("play strategic-move from 8 by 5", Play(C.STRATEGIC_MOVE.kind, sector=8, die=5)),
    ("play space-combat-tactics T3 by 5", Play(C.SPACE_COMBAT_TACTICS.kind, unit=T3, die=5)),
    ("play defend-the-homeworld E5", Play(C.DEFEND_THE_HOMEWORLD.kind, unit=E5)),
    ("play hold-position on 2", Play(C.HOLD_POSITION.kind, die=2)),
    ("play jam-transmission E5", Play(C.JAM_TRANSMISSION.kind, unit=E5)),
    ("play reinforcements T3", Play(C.REINFORCEMENTS.kind, unit=T3)),
    ("play nova-bomb", Play(C.NOVA_BOMB.kind)),
    ("play ambush", Play(C.AMBUSH.kind)),
    ("play espionage", Play(C.ESPIONAGE.kind)),
    (
        "play major-offensive discard nova-bomb plasteel-armor",
        Play(C.MAJOR_OFFENSIVE.kind, discards=(C.NOVA_BOMB.kind, C.PLASTEEL_ARMOR.kind)),
    ),
]


@pytest.mark.parametrize(("text", "action"), EXAMPLES)
def test_notation_round_trip(text: str, action: Action) -> None:
    state = VARIANT.new_game()
    assert VARIANT.parse_action(state, text) == action
    assert VARIANT.parse_action(state, f"  {text.upper()} ") == action
    assert action.notation == text


@pytest.mark.parametrize(
    "text",
    [
        "fly T3",
        "move X3 by 2",
        "move T16 by 2",
        "move T3 2",
        "play no-such-card",
        "play nova-bomb on 3",
        "play ion-thrusters",
        "play strategic-move from 40 by 2",
        "play major-offensive discard nova-bomb",
        "keep T3 T3",
        "roll 7-1",
        "discard",
    ],
)
def test_bad_notation_is_a_notation_error(text: str) -> None:
    with pytest.raises(NotationError):
        VARIANT.parse_action(VARIANT.new_game(), text)


def test_well_formed_but_illegal_actions_say_why() -> None:
    state = make_state({"E5": 20}, home=["T1"], dice=(3, 4))
    with pytest.raises(IllegalActionError, match="T3 cannot move"):
        play(state, "move T3 by 3")
    with pytest.raises(IllegalActionError, match="no die 6"):
        play(state, "move E5 by 6")
    with pytest.raises(IllegalActionError):
        play(state, "roll 1-2")


def test_replay_of_a_random_game_reaches_the_same_state() -> None:
    log: list[str] = []
    final, _ = random_playout(3)
    # The same game again (same seed), keeping the notations, then replayed from them.
    rng = random.Random(3)
    state = VARIANT.new_game()
    while state.outcome() is None:
        if state.to_move() == CHANCE:
            spec = state.chance()
            assert spec is not None
            if spec.kind is ChanceKind.SHUFFLE:
                order = list(range(spec.count))
                rng.shuffle(order)
                action = state.chance_action(order)
            else:
                action = state.chance_action([rng.randint(1, spec.sides) for _ in range(spec.count)])
        else:
            action = rng.choice(state.legal_actions())
        log.append(action.notation)
        state = state.apply(action)
    assert state == final
    assert replay(VARIANT, None, log) == final


def _saved() -> dict[str, Any]:
    state = make_state(
        {"E1": 10, "T1": 10},
        home=["E2"],
        hands=((C.NOVA_BOMB,), (C.AMBUSH,)),
        phase=Phase.ATTACK,
        fight_sector=10,
    )
    data: dict[str, Any] = json.loads(json.dumps(state.to_json()))
    assert VARIANT.from_json(data) == state
    return data


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.update(game="ring"),
        lambda d: d.update(schema=99),
        lambda d: d.pop("deck"),
        lambda d: d.update(extra=1),
        lambda d: d["positions"].append(1),
        lambda d: d["positions"].__setitem__(0, 29),
        lambda d: d["positions"].__setitem__(0, True),
        lambda d: d["deck"].append(d["deck"][0]),
        lambda d: d["deck"].pop(),
        lambda d: d["hands"][0].insert(0, d["deck"].pop()),  # unsorted
        lambda d: d.update(phase="lunch"),
        lambda d: d.update(phase="over"),
        lambda d: d.update(turn=2),
        lambda d: d.update(fight_sector=0),
        lambda d: d.update(keep_seat=1),
        lambda d: d.update(dice=[7, 1], bonus=[0, 0]),
        lambda d: d.update(dice=[1, 2], bonus=[0]),
        lambda d: d.update(dice_left=[0, 0], dice=[1, 2], bonus=[0, 0]),
        lambda d: d.update(moved=[[0, 3, False]]),
        lambda d: d.update(hyper=1),
        lambda d: d.update(
            outcome={"winner": 0, "reason": "boredom", "description": "", "points": 1, "length": 1}
        ),
        lambda d: d.update(spy=[0, [99]]),
        lambda d: d.update(spy=[0, []]),
        lambda d: d.update(jammed=[20]),
        lambda d: d.update(moved=[[20, 1, False]]),
        lambda d: d.update(phase="roll"),  # both sides in sector 10 before the move
    ],
)
def test_corrupt_saved_states_are_refused(change: Any) -> None:
    data = _saved()
    change(data)
    with pytest.raises(CorruptStateError):
        VARIANT.from_json(data)


def test_not_a_mapping_is_refused() -> None:
    with pytest.raises(CorruptStateError):
        VARIANT.from_json({"game": "space", "schema": 1, "positions": "abc"})
