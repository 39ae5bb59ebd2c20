"""The persistent controls the bot makes, declared on the framework of ``cogs.control_framework``:
what answers them (the handler types, each registered under its role), then each kind's custom id,
the method that answers it and its look.

Game controls: ``g:<match>:<version>:<value>`` for buttons, ``g:<match>:<version>:s<row>`` for
selects (the chosen option's value says what to do). The version makes a control from an earlier
position harmless: the session manager refuses it. Every custom id is written exactly as earlier
versions of the bot wrote it, so boards posted by them still answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import discord

from bot.session import Played
from cogs.control_framework import (
    CUSTOM_ID_LIMIT,
    ID,
    NUMBER,
    Answer,
    Answerer,
    Control,
    Field,
    RefusedControl,
    chosen_values,
    malformed_template,
    named,
)
from cogs.panels.base import ButtonSpec, SelectSpec, acts_chosen

# -- what answers them -------------------------------------------------------------------------------


class GameControls(Protocol):
    """What answers the controls of a match (``cogs.match_controls.MatchControls``, the ``Play`` cog's)."""

    async def on_control(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, value: str
    ) -> None: ...
    async def on_resign_button(
        self, interaction: discord.Interaction[Any], match_id: int, op: str
    ) -> None: ...
    async def on_hand(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...
    async def on_standing_answer(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, op: str
    ) -> None: ...
    async def on_resign_ask(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...
    async def on_question_answered(
        self, interaction: discord.Interaction[Any], match_id: int, op: str
    ) -> None: ...
    async def on_stop_after_game(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...
    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str
    ) -> None: ...
    async def publish_saved(self, interaction: discord.Interaction[Any], played: Played) -> None: ...


class ChallengeControls(Protocol):
    """What answers Accept, Decline, Cancel and Rematch (``cogs.challenge_answers.ChallengeAnswers``, the
    ``Challenge`` cog's)."""

    async def on_challenge_button(
        self, interaction: discord.Interaction[Any], challenge_id: int, op: str
    ) -> None: ...
    async def on_rematch(self, interaction: discord.Interaction[Any], match_id: int) -> None: ...


class RulesControls(Protocol):
    """What answers **Rules** and the rules pages' Prev / Next (the ``Help`` cog)."""

    async def send_rules(self, interaction: discord.Interaction[Any], game: str) -> None: ...
    async def on_rules_page(self, interaction: discord.Interaction[Any], game: str, page: int) -> None: ...


class HintControls(Protocol):
    """What answers the match picker of ``/hint`` and its **Play this** (the ``Coach`` cog)."""

    async def on_pick(
        self, interaction: discord.Interaction[Any], op: str, match_id: int, arg: str
    ) -> None: ...
    async def on_play_hint(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, action: str
    ) -> None: ...


class TutorControls(Protocol):
    """What answers a tutor's warning's **Confirm anyway** and **Back** (the ``Tutoring`` cog)."""

    async def on_tutor(
        self, interaction: discord.Interaction[Any], match_id: int, version: int, op: str
    ) -> None: ...


class ReviewControls(Protocol):
    """What answers **Review** on an analysis and a review's First / Prev / Next / Last (the ``Review``
    cog)."""

    async def open_review(self, interaction: discord.Interaction[Any], reviewed: Reviewed) -> None: ...
    async def on_review_page(
        self, interaction: discord.Interaction[Any], reviewed: Reviewed, user_id: int, page: int, op: str
    ) -> None: ...


class TournamentControls(Protocol):
    """What answers a tournament announcement's Join, Leave and Start (the ``Tournament`` cog)."""

    async def on_tournament_button(
        self, interaction: discord.Interaction[Any], tournament_id: int, op: str
    ) -> None: ...


GAME = Answerer[GameControls]("game")
CHALLENGE = Answerer[ChallengeControls]("challenge")
RULES = Answerer[RulesControls]("rules")
HINT = Answerer[HintControls]("hint")
TUTOR = Answerer[TutorControls]("tutor")
REVIEW = Answerer[ReviewControls]("review")
TOURNAMENT = Answerer[TournamentControls]("tournament")


# -- the kinds ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reviewed:
    """What a review pages through: a match of ours (written ``12`` in a custom id) or a match
    analysed from a file (``f12``, its number among those: ``bot.store.imports``)."""

    id: int
    from_file: bool = False

    def __str__(self) -> str:
        return f"f{self.id}" if self.from_file else str(self.id)

    @classmethod
    def read(cls, text: str) -> Reviewed:
        return cls(int(text.removeprefix("f")), text.startswith("f"))


REVIEWED = Field(f"f?{ID}", Reviewed.read)


class GameButton(Control[discord.ui.Button[Any]]):
    id_format = "g:{match_id}:{version}:{value}"
    fields = named(match_id=NUMBER, version=NUMBER, value=Field("roll|undo|confirm|a:.+|n:.*"))
    answer = GAME.calls(GameControls.on_control)

    @classmethod
    def build(
        cls, match_id: int, version: int, spec: ButtonSpec, style: discord.ButtonStyle, row: int
    ) -> GameButton:
        values = {"match_id": match_id, "version": version, "value": spec.value}
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=spec.label[:80],
            style=style,
            custom_id=cls.id_for(**values),
            emoji=spec.emoji,
            disabled=spec.disabled,
            row=row,
        )
        return cls(button, **values)


class GameSelect(Control[discord.ui.Select[Any]]):
    id_format = "g:{match_id}:{version}:s{row}"
    fields = named(match_id=NUMBER, version=NUMBER, row=Field("[0-4]", int))  # a message's five rows
    answer = GAME.calls(GameControls.on_control)

    @classmethod
    def build(cls, match_id: int, version: int, row: int, spec: SelectSpec) -> GameSelect:
        values = {"match_id": match_id, "version": version, "row": row}
        options = spec.options[:25]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=cls.id_for(**values),
            placeholder=spec.placeholder[:150],
            options=[
                discord.SelectOption(
                    label=o.label[:100], value=o.value[:100], description=(o.description or None)
                )
                for o in options
            ],
            min_values=min(spec.min_values, len(options)),
            max_values=min(spec.max_values, len(options)),
            row=row,
        )
        return cls(select, **values)

    def arguments(self, interaction: discord.Interaction[Any]) -> tuple[Any, ...] | str:
        # The chosen options' values say what to do (several: each in turn).
        values = chosen_values(interaction)
        return (
            (self.values["match_id"], self.values["version"], acts_chosen(values))
            if values
            else "Choose one of the options."
        )


class ChallengeButton(Control[discord.ui.Button[Any]]):
    id_format = "ch:{challenge_id}:{op}"
    fields = named(challenge_id=NUMBER, op=Field("accept|decline|cancel"))
    answer = CHALLENGE.calls(ChallengeControls.on_challenge_button)
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "decline": ("Decline", discord.ButtonStyle.danger),
        "cancel": ("Cancel", discord.ButtonStyle.secondary),
    }

    @classmethod
    def build(cls, challenge_id: int, op: str) -> ChallengeButton:
        label, style = cls.LABELS[op]
        made: ChallengeButton = cls.button(label, style, challenge_id=challenge_id, op=op)
        return made


class ResignButton(Control[discord.ui.Button[Any]]):
    """Resign / Keep playing in the private confirmation."""

    id_format = "rs:{match_id}:{op}"
    fields = named(match_id=NUMBER, op=Field("yes|no"))
    answer = GAME.calls(GameControls.on_resign_button)
    # Its message loses it only when the question is answered: an old copy's click changes nothing.
    answer_when_removed = GAME.calls(GameControls.on_question_answered)

    @classmethod
    def build(cls, match_id: int, op: str) -> ResignButton:
        label, style = (
            ("Resign", discord.ButtonStyle.danger)
            if op == "yes"
            else ("Keep playing", discord.ButtonStyle.secondary)
        )
        made: ResignButton = cls.button(label, style, match_id=match_id, op=op)
        return made


class HandButton(Control[discord.ui.Button[Any]]):
    """ "My hand" on a public board: a fresh private reply with the clicker's own view and, when it is
    their decision, its private controls. It carries no version: it always shows the present."""

    id_format = "hand:{match_id}"
    fields = named(match_id=NUMBER)
    answer = GAME.calls(GameControls.on_hand)

    @classmethod
    def build(cls, match_id: int) -> HandButton:
        made: HandButton = cls.button("My hand", discord.ButtonStyle.primary, "🂠", match_id=match_id)
        return made


class StandingAnswerButton(Control[discord.ui.Button[Any]]):
    """A player's standing answer to response windows in one match, in their private reply: "Always
    pass in this match" (``pass``: the window open now passes, and every later one as it opens) or
    "Ask me in windows" (``ask``: back to being asked). It carries the match version its reply was
    drawn for, so a stale "Always pass" passes nothing."""

    id_format = "sa:{match_id}:{version}:{op}"
    fields = named(match_id=NUMBER, version=NUMBER, op=Field("pass|ask"))
    answer = GAME.calls(GameControls.on_standing_answer)
    LABELS: ClassVar[dict[str, str]] = {"pass": "Always pass in this match", "ask": "Ask me in windows"}

    @classmethod
    def build(cls, match_id: int, version: int, op: str) -> StandingAnswerButton:
        emoji = "⏩" if op == "pass" else "✋"
        made: StandingAnswerButton = cls.button(
            cls.LABELS[op], discord.ButtonStyle.secondary, emoji, match_id=match_id, version=version, op=op
        )
        return made


class RematchButton(Control[discord.ui.Button[Any]]):
    id_format = "rm:{match_id}"
    fields = named(match_id=NUMBER)
    answer = CHALLENGE.calls(ChallengeControls.on_rematch)

    @classmethod
    def build(cls, match_id: int) -> RematchButton:
        made: RematchButton = cls.button("Rematch", discord.ButtonStyle.primary, "🔁", match_id=match_id)
        return made


class ResignAskButton(Control[discord.ui.Button[Any]]):
    """Resign on a board message: a private confirmation (Resign / Keep playing) for the clicker."""

    id_format = "rsk:{match_id}"
    fields = named(match_id=NUMBER)
    answer = GAME.calls(GameControls.on_resign_ask)

    @classmethod
    def build(cls, match_id: int) -> ResignAskButton:
        made: ResignAskButton = cls.button("Resign", discord.ButtonStyle.secondary, "🏳️", match_id=match_id)
        return made


class StopAfterGameButton(Control[discord.ui.Button[Any]]):
    """**Stop after this game** on the board of a money session: either player ends the session
    when the game in progress ends."""

    id_format = "stop:{match_id}"
    fields = named(match_id=NUMBER)
    answer = GAME.calls(GameControls.on_stop_after_game)

    @classmethod
    def build(cls, match_id: int) -> StopAfterGameButton:
        made: StopAfterGameButton = cls.button(
            "Stop after this game", discord.ButtonStyle.secondary, "⏹️", match_id=match_id
        )
        return made


class PlayHintButton(Control[discord.ui.Button[Any]]):
    """**Play this** on a private hint: plays the hint's best choice (``action``, its notation) for the
    player who asked, if the match is still at the ``version`` the hint was given for."""

    id_format = "hp:{match_id}:{version}:{action}"
    fields = named(match_id=NUMBER, version=NUMBER, action=Field(".{1,57}"))
    answer = HINT.calls(HintControls.on_play_hint)

    @classmethod
    def build(cls, match_id: int, version: int, action: str) -> PlayHintButton:
        made: PlayHintButton = cls.button(
            "Play this", discord.ButtonStyle.success, "▶️", match_id=match_id, version=version, action=action
        )
        return made


class TutorButton(Control[discord.ui.Button[Any]]):
    """A tutor's warning's buttons (``cogs.tutor``): ``confirm`` makes the turn held back final,
    ``a:<notation>`` plays the decision held back (a cube action, a play typed whole), ``back`` leaves
    it unplayed; each only while the match is at the ``version`` the warning was given for."""

    id_format = "tu:{match_id}:{version}:{op}"
    fields = named(match_id=NUMBER, version=NUMBER, op=Field("confirm|back|a:.{1,70}"))
    answer = TUTOR.calls(TutorControls.on_tutor)
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle, str]]] = {
        "confirm": ("Confirm anyway", discord.ButtonStyle.danger, "⚠️"),
        "back": ("Undo", discord.ButtonStyle.secondary, "↩️"),
    }

    @classmethod
    def build(cls, match_id: int, version: int, op: str) -> TutorButton:
        label, style, emoji = cls.LABELS["confirm" if op.startswith("a:") else op]
        made: TutorButton = cls.button(label, style, emoji, match_id=match_id, version=version, op=op)
        return made


_MATCH_NUMBER = re.compile(ID)

PICK_ARG_LIMIT = CUSTOM_ID_LIMIT - len("pick:move:")
"""The longest text a match picker can carry for its command (``/move``'s notation)."""


class MatchPicker(Control[discord.ui.Select[Any]]):
    """/board, /resign, /position, /move or /hint with several matches in one place: choose the match.
    ``arg`` is what the command was given (``/move``'s notation), carried in the custom id so the
    choice needs nothing kept in memory."""

    id_format = "pick:{op}[:{arg}]"
    fields = named(op=Field("board|resign|position|move|hint"), arg=Field(f".{{1,{PICK_ARG_LIMIT}}}"))
    answer = GAME.calls(GameControls.on_pick)
    #: ``/hint``'s picker is answered by the coach.
    hint_answer: ClassVar[Answer[HintControls]] = HINT.calls(HintControls.on_pick)

    @classmethod
    def build(cls, op: str, choices: list[tuple[int, str]], arg: str = "") -> MatchPicker:
        if len(arg) > PICK_ARG_LIMIT:
            raise ValueError(f"a picker carries at most {PICK_ARG_LIMIT} characters")
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=cls.id_for(op=op, arg=arg),
            placeholder="Which match?",
            options=[discord.SelectOption(label=label[:100], value=str(mid)) for mid, label in choices[:25]],
        )
        return cls(select, op=op, arg=arg)

    def answer_for(self) -> Answer[Any]:
        return self.hint_answer if self.values["op"] == "hint" else self.answer

    def arguments(self, interaction: discord.Interaction[Any]) -> tuple[Any, ...] | str:
        values = chosen_values(interaction)
        if not values or not _MATCH_NUMBER.fullmatch(values[0]):
            return "Choose one of the matches."
        return (self.values["op"], int(values[0]), self.values["arg"])


GAME_KEY = Field("[a-z0-9_-]{1,40}")


class RulesButton(Control[discord.ui.Button[Any]]):
    """Prev / Next on a rules page: the custom id names the game and the page it shows (1-based)."""

    id_format = "rules:{game}:{page}"
    fields = named(game=GAME_KEY, page=Field(r"\d{1,4}", int))
    answer = RULES.calls(RulesControls.on_rules_page)

    @classmethod
    def build(cls, game: str, page: int, label: str) -> RulesButton:
        made: RulesButton = cls.button(label, discord.ButtonStyle.secondary, game=game, page=page)
        return made


class OpenRulesButton(Control[discord.ui.Button[Any]]):
    """**Rules** on a board message: the game's rules, page 1, in a private reply."""

    id_format = "rules:{game}"
    fields = named(game=GAME_KEY)
    answer = RULES.calls(RulesControls.send_rules)

    @classmethod
    def build(cls, game: str) -> OpenRulesButton:
        made: OpenRulesButton = cls.button("Rules", discord.ButtonStyle.secondary, "📖", game=game)
        return made


class OpenReviewButton(Control[discord.ui.Button[Any]]):
    """**Review** on a match's analysis: the clicker's own review of that match, in a private reply."""

    id_format = "rvo:{reviewed}"
    fields = named(reviewed=REVIEWED)
    answer = REVIEW.calls(ReviewControls.open_review)

    @classmethod
    def build(cls, reviewed: Reviewed) -> OpenReviewButton:
        made: OpenReviewButton = cls.button("Review", discord.ButtonStyle.primary, "🔍", reviewed=reviewed)
        return made


class ReviewButton(Control[discord.ui.Button[Any]]):
    """First / Prev / Next / Last in a review: the custom id names what is reviewed (``Reviewed``), who opened the review
    and the page the button leads to (1-based); ``op`` only tells the four apart (two may lead to one
    page, and a message's custom ids must differ)."""

    id_format = "rv:{reviewed}:{user_id}:{page}:{op}"
    fields = named(
        reviewed=REVIEWED, user_id=NUMBER, page=Field(r"\d{1,5}", int), op=Field("first|prev|next|last")
    )
    answer = REVIEW.calls(ReviewControls.on_review_page)
    LABELS: ClassVar[dict[str, str]] = {"first": "First", "prev": "Prev", "next": "Next", "last": "Last"}
    EMOJIS: ClassVar[dict[str, str]] = {"first": "⏮️", "prev": "◀️", "next": "▶️", "last": "⏭️"}

    @classmethod
    def build(cls, reviewed: Reviewed, user_id: int, page: int, op: str, disabled: bool) -> ReviewButton:
        values = {"reviewed": reviewed, "user_id": user_id, "page": page, "op": op}
        button: discord.ui.Button[Any] = discord.ui.Button(
            label=cls.LABELS[op],
            style=discord.ButtonStyle.secondary,
            custom_id=cls.id_for(**values),
            emoji=cls.EMOJIS[op],
            disabled=disabled,
        )
        return cls(button, **values)


class TournamentButton(Control[discord.ui.Button[Any]]):
    id_format = "tn:{tournament_id}:{op}"
    fields = named(tournament_id=NUMBER, op=Field("join|leave|start"))
    answer = TOURNAMENT.calls(TournamentControls.on_tournament_button)
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "join": ("Join", discord.ButtonStyle.success),
        "leave": ("Leave", discord.ButtonStyle.secondary),
        "start": ("Start", discord.ButtonStyle.primary),
    }

    @classmethod
    def build(cls, tournament_id: int, op: str) -> TournamentButton:
        return cls.button(*cls.LABELS[op], tournament_id=tournament_id, op=op)  # type: ignore[no-any-return]


KINDS: tuple[type[Control[Any]], ...] = tuple(Control.kinds)
"""Every kind of control declared above, in order."""


class MalformedControl(RefusedControl, template=malformed_template(KINDS)):
    """A custom id of one of the bot's kinds that none of them accepts: matched by nothing else, so it
    gets its own answer (``RefusedControl``)."""


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (*KINDS, MalformedControl)
"""What the bot registers with discord.py."""


MALFORMED_KIND = "malformed_control"


def control_kind(custom_id: str) -> str:
    """The kind of control a custom id belongs to (``Control.kind``), ``malformed_control`` for one of
    the bot's prefixes that no kind accepts, ``unknown`` for anything else."""
    for kind in KINDS:
        if kind.__discord_ui_compiled_template__.fullmatch(custom_id):
            return kind.kind
    return (
        MALFORMED_KIND
        if MalformedControl.__discord_ui_compiled_template__.fullmatch(custom_id)
        else "unknown"
    )
