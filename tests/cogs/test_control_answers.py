"""Every kind of control names, with a reference the type checker follows, the method that answers it;
a declaration whose fields are not what that method takes fails as it is made."""

from __future__ import annotations

from typing import Any

import discord
import pytest

from cogs.challenge_answers import ChallengeAnswers
from cogs.coach import Coach
from cogs.control_framework import NUMBER, Control, ControlHandlers, named
from cogs.control_kinds import (
    CHALLENGE,
    GAME,
    HINT,
    KINDS,
    REVIEW,
    RULES,
    TOURNAMENT,
    TUTOR,
    GameControls,
    MatchPicker,
)
from cogs.help import Help
from cogs.match_controls import MatchControls
from cogs.review import Review
from cogs.tournament import Tournament
from cogs.tutor import Tutoring

IMPLEMENTED_BY = {
    GAME: MatchControls,
    CHALLENGE: ChallengeAnswers,
    RULES: Help,
    HINT: Coach,
    REVIEW: Review,
    TOURNAMENT: Tournament,
    TUTOR: Tutoring,
}


def test_every_answer_is_a_method_its_handler_implements() -> None:
    answers = [kind.answer for kind in KINDS]
    answers += [kind.answer_when_removed for kind in KINDS if kind.answer_when_removed is not None]
    answers.append(MatchPicker.hint_answer)
    for answer in answers:
        implementation = getattr(IMPLEMENTED_BY[answer.by], answer.method.__name__)
        assert implementation is not answer.method, "the handler's own method is the one called"


def test_a_kind_whose_fields_are_not_what_its_method_takes_fails_as_it_is_declared() -> None:
    with pytest.raises(TypeError, match="not what"):

        class Swapped(Control[discord.ui.Button[Any]]):  # the handler takes (match_id, version, value)
            id_format = "zz:{version}:{match_id}:{value}"
            fields = named(match_id=NUMBER, version=NUMBER, value=NUMBER)
            answer = GAME.calls(GameControls.on_control)

    Control.kinds[:] = [kind for kind in Control.kinds if kind.__name__ != "Swapped"]


def test_handlers_are_found_by_role_and_removed_only_by_their_own() -> None:
    handlers = ControlHandlers()
    first: Any = object()
    second: Any = object()
    handlers.register(TOURNAMENT, first)
    handlers.unregister(TOURNAMENT, second)
    assert handlers.get(TOURNAMENT) is first and handlers.get(GAME) is None
    handlers.unregister(TOURNAMENT, first)  # type: ignore[misc]  # mypy narrowed ``first`` above
    assert handlers == ControlHandlers()
