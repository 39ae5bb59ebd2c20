"""The shared protocol: registry, options, chance steps, saved states and errors."""

from __future__ import annotations

import json
import random

import pytest

from engine import (
    CHANCE,
    VARIANTS,
    BadOptionsError,
    CorruptStateError,
    GameError,
    IllegalActionError,
    UnknownVariantError,
    find_variant,
    replay,
)
from engine.ai.random_player import random_action
from engine.errors import NotationError
from engine.protocol import ChanceKind, ChanceSpec, OptionSpec
from engine.ring import RingVariant


def test_find_variant_ignores_case_and_spaces() -> None:
    assert find_variant(" Ring ").key == "ring"


def test_unknown_variant_lists_the_known_ones() -> None:
    with pytest.raises(UnknownVariantError, match=r"The games are: .*\(ring\)"):
        find_variant("chess")


def test_errors_are_value_errors_with_one_base() -> None:
    assert issubclass(IllegalActionError, GameError) and issubclass(GameError, ValueError)


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_unknown_option_is_refused(key: str) -> None:
    with pytest.raises(BadOptionsError, match="no option colour"):
        VARIANTS[key].new_game({"colour": "green"})


LENGTH = OptionSpec("length", "Match length", 1, minimum=1, maximum=25, summary="{value}-point match")
RULES = OptionSpec(
    "rules",
    "Rule set",
    "standard",
    choices=("standard", "oldenglish", "nackgammon"),
    choice_labels=("Standard", "Old English (at most five checkers on a point)", "Nackgammon"),
    summary="{label} rules",
)


class _WithOptions(RingVariant):
    options = (LENGTH, RULES)


def test_describe_options_names_only_what_differs_from_the_defaults() -> None:
    variant = _WithOptions()
    assert variant.describe_options(variant.resolve_options({})) == ""
    assert variant.describe_options({}) == ""
    assert variant.describe_options({"length": 5}) == "5-point match"
    assert variant.describe_options({"rules": "oldenglish"}) == "Old English rules"
    both = variant.resolve_options({"rules": "oldenglish", "length": 5})
    assert variant.describe_options(both) == "5-point match, Old English rules"
    assert variant.describe_options({"rules": "nackgammon", "length": 1}) == "Nackgammon rules"


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_describe_options_of_defaults_is_empty(key: str) -> None:
    variant = VARIANTS[key]
    assert variant.describe_options(variant.resolve_options({})) == ""


def test_an_option_without_summary_or_labels_is_named_with_its_value() -> None:
    class Plain(RingVariant):
        options = (
            OptionSpec("cube", "Doubling cube", True),
            OptionSpec("level", "Level", "easy", ("easy", "hard")),
        )

    assert Plain().describe_options({"cube": False, "level": "hard"}) == "cube False, level hard"


def test_option_labels() -> None:
    assert RULES.label("oldenglish") == "Old English (at most five checkers on a point)"
    assert RULES.short_label("oldenglish") == "Old English"
    assert RULES.label("standard") == RULES.short_label("standard") == "Standard"
    assert LENGTH.label(7) == LENGTH.short_label(7) == "7"
    with pytest.raises(ValueError, match="one label per choice"):
        OptionSpec("rules", "Rule set", "a", choices=("a", "b"), choice_labels=("A",))


def test_bad_options_say_what_is_wrong() -> None:
    variant = _WithOptions()
    with pytest.raises(BadOptionsError, match=r"has no option colour \(options: length, rules\)"):
        variant.resolve_options({"colour": "red"})
    with pytest.raises(BadOptionsError, match=r"Ring has no option rules \(it takes no options\)"):
        find_variant("ring").resolve_options({"rules": "standard"})
    with pytest.raises(BadOptionsError, match="length must be at most 25"):
        variant.resolve_options({"length": 26})
    with pytest.raises(BadOptionsError, match="rules must be one of standard, oldenglish, nackgammon"):
        variant.resolve_options({"rules": "chouette"})


def test_chance_spec_checks_outcomes() -> None:
    dice = ChanceSpec(ChanceKind.DICE, count=3, sides=6)
    assert dice.check([1, 6, 3]) == (1, 6, 3)
    with pytest.raises(NotationError, match="1 to 6, not 7"):
        dice.check([1, 7, 3])
    with pytest.raises(NotationError, match="expected 3"):
        dice.check([1, 2])
    shuffle = ChanceSpec(ChanceKind.SHUFFLE, count=3)
    assert shuffle.check([2, 0, 1]) == (2, 0, 1)
    with pytest.raises(NotationError, match="exactly once"):
        shuffle.check([0, 0, 1])


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_a_game_is_a_pure_function_of_its_action_log(key: str) -> None:
    variant = VARIANTS[key]
    rng = random.Random(7)
    state = variant.new_game()
    log: list[str] = []
    while not state.is_terminal():
        action = random_action(state, rng)
        log.append(action.notation)
        state = state.apply(action)
    assert replay(variant, None, log) == state


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_apply_leaves_the_old_state_unchanged(key: str) -> None:
    state = VARIANTS[key].new_game()
    before = state.canonical()
    state.apply(random_action(state, random.Random(1)))
    assert state.canonical() == before


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_chance_steps_are_marked_and_players_decide_otherwise(key: str) -> None:
    rng = random.Random(3)
    state = VARIANTS[key].new_game()
    for _ in range(200):
        if state.is_terminal():
            break
        if state.to_move() == CHANCE:
            assert state.chance() is not None and state.legal_actions() == ()
        else:
            assert state.chance() is None and state.legal_actions()
            assert state.to_move() in (0, 1)
        state = state.apply(random_action(state, rng))


CORRUPTIONS = [
    ("wrong game", lambda d: {**d, "game": "chess"}, "not a ring game"),
    ("newer schema", lambda d: {**d, "schema": 99}, "schema 99"),
    ("missing field", lambda d: {k: v for k, v in d.items() if k != "piles"}, "cannot be read"),
    ("extra field", lambda d: {**d, "cheat": True}, "do not belong"),
    ("tokens created", lambda d: {**d, "piles": [9, 10]}, "12 tokens per player"),
    ("board too short", lambda d: {**d, "board": d["board"][:11]}, "12 spaces"),
    ("die of 7", lambda d: {**d, "dice": [7, 1, 1]}, "impossible die"),
    ("bad phase", lambda d: {**d, "phase": "dance"}, "cannot be read"),
    ("turn and phase disagree", lambda d: {**d, "turn": None}, "turn does not match"),
    ("not an object", lambda d: {**d, "board": "xx"}, "impossible stack|cannot be read"),
]


@pytest.mark.parametrize(("label", "corrupt", "message"), CORRUPTIONS, ids=[c[0] for c in CORRUPTIONS])
def test_corrupt_saved_ring_state_is_refused_clearly(label: str, corrupt: object, message: str) -> None:
    variant = find_variant("ring")
    state = variant.new_game().apply(variant.parse_action(variant.new_game(), "start 5-2"))
    data = json.loads(json.dumps(state.to_json()))
    with pytest.raises(CorruptStateError, match=message):
        variant.from_json(corrupt(data))  # type: ignore[operator]
