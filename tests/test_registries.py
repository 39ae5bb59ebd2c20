"""One kit per game: every table keyed by a game is derived from ``kits.KITS``, a game added through
its kit alone works everywhere, and shared code names no game.

The recipe for adding a game is docs/architecture.md's "Adding a game" (its only copy); the tests
below check each of its steps for every registered game and for the test-only ``duel``, and
``tests/test_new_game_recipe.py`` follows it for a new game in a copy of the repository. No table
here names a game: each is derived from ``KITS``.
"""

from __future__ import annotations

import ast
import io
import json
import random
import re
import tokenize
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from cogs.panels import PANELS
from cogs.panels.base import Panel
from engine import VARIANTS, CorruptStateError, EndReason, Forfeit, Outcome, Variant
from engine.ai import players
from engine.ai.coaches import ANALYSES, HINTS
from engine.ai.levels import LEVEL_PLAYERS, LEVELS, levels_of
from engine.ai.players import PLAYERS, NoComputerPlayerError, computer_action
from kits import KITS, GameKit, KitTable, Part
from kits.base import Coach
from render import RENDERERS, SEAT_STYLES, NoRendererError, SeatStyle, seat_style
from render.__main__ import PALETTES, RULES_SHEETS, SAMPLES
from render.samples import SampleSet
from render.theme import Caption

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "cogs" / "rules"

REGISTRIES: dict[str, Mapping[str, object]] = {
    "engine.VARIANTS": VARIANTS,
    "render.RENDERERS": RENDERERS,
    "render.SEAT_STYLES": SEAT_STYLES,
    "cogs.panels.PANELS": PANELS,
    "engine.ai.players.PLAYERS": PLAYERS,
    "engine.ai.levels.LEVEL_PLAYERS": LEVEL_PLAYERS,
    "render.__main__.SAMPLES (python -m render sample)": SAMPLES,
}


@pytest.mark.parametrize("name", sorted(REGISTRIES))
def test_every_registry_has_exactly_the_registered_games(name: str) -> None:
    games = set(KITS)
    keys = set(REGISTRIES[name])
    assert keys == games, f"{name}: missing {sorted(games - keys)}, extra {sorted(keys - games)}"
    assert isinstance(REGISTRIES[name], KitTable), f"{name} is kept by hand, not derived from the kits"


def test_the_optional_tables_hold_the_games_whose_kits_have_the_part() -> None:
    assert set(HINTS) == set(ANALYSES) == {k for k, kit in KITS.items() if kit.coach is not None}
    assert set(RULES_SHEETS) == {k for k, kit in KITS.items() if kit.rules_sheets is not None}
    assert set(PALETTES) == {k for k, kit in KITS.items() if kit.palette is not None}


def check_kit(kit: GameKit, rules_dir: Path = RULES) -> None:
    """Every part of ``kit`` resolves to what its layer expects: the recipe's steps, checked."""
    variant = kit.variant.get()
    assert isinstance(variant, Variant) and variant.key == kit.key
    table = kit.players.get()
    assert kit.bot_player in table and "random" in table and all(callable(p) for p in table.values())
    panel: Panel = kit.panel.get()
    assert callable(panel.controls)
    seats = kit.seats.get()
    assert len(seats) == 2 and all(isinstance(s, SeatStyle) for s in seats)
    samples = kit.samples.get()
    assert isinstance(samples, SampleSet) and "start" in samples.names
    assert (rules_dir / kit.rules_page).is_file(), f"{kit.key}: no rules page {kit.rules_page}"
    start = variant.new_game()
    png = kit.renderer.get()(start.view(None), Caption(names=("A", "B")))
    assert png.startswith(b"\x89PNG")
    if kit.rules_sheets is not None:
        names = set(samples.names)
        for sheet in kit.rules_sheets.get():
            assert {p.sample for p in sheet.panels} <= names, f"{kit.key}: {sheet.name} shows unknown samples"
    if kit.palette is not None:
        assert callable(kit.palette.get())
    if kit.coach is not None:
        assert callable(kit.coach.hint.get()) and callable(kit.coach.analysis.get())


@pytest.mark.parametrize("key", sorted(KITS))
def test_each_kit_fills_the_recipe(key: str) -> None:
    check_kit(KITS[key])
    levels = levels_of(key)  # optional: a game without levels plays its bot_player
    assert set(levels) <= set(LEVEL_PLAYERS[key]) and all(level in LEVELS for level in levels)


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_each_game_declares_its_two_seats_with_names_and_distinct_looks(key: str) -> None:
    variant = VARIANTS[key]
    assert variant.key == key
    names = variant.seat_names
    assert len(names) == 2 and names[0] != names[1] and all(names)
    styles = SEAT_STYLES[key]
    assert len(styles) == 2 and seat_style(key, 1) is styles[1]
    # Colour and shape both tell the seats apart (colour-blind players read the shape).
    assert styles[0].fill != styles[1].fill and styles[0].shape != styles[1].shape
    assert styles[0].hex == int(bytes(styles[0].fill).hex(), 16)


def test_a_game_without_seat_styles_is_named() -> None:
    with pytest.raises(NoRendererError, match="chess"):
        seat_style("chess", 0)


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_each_game_declares_its_end_reasons_and_reads_them_back(key: str) -> None:
    variant = VARIANTS[key]
    assert issubclass(variant.win_reasons, EndReason) and variant.win_reasons is not Forfeit
    assert len(variant.win_reasons) > 0
    values = [r.value for r in variant.end_reasons]
    assert len(values) == len(set(values)), "a game's own reasons must not reuse a forfeit's key"
    assert set(Forfeit) <= set(variant.end_reasons)
    for reason in variant.end_reasons:
        assert variant.read_reason(reason.value) is reason
        outcome = Outcome(winner=0, reason=reason, description="...")
        again = Outcome.from_json(outcome.to_json(), variant)
        assert again == outcome and again.reason is reason
    with pytest.raises(CorruptStateError, match="'checkmate' is not a way"):
        variant.read_reason("checkmate")
    with pytest.raises(ValueError):
        Outcome.from_json({**outcome.to_json(), "reason": "checkmate"}, variant)


def test_a_game_without_a_computer_player_is_an_error_not_a_random_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = next(iter(VARIANTS.values())).new_game()
    monkeypatch.setattr(players, "PLAYERS", {})
    with pytest.raises(NoComputerPlayerError, match=state.variant_key):
        computer_action(state, random.Random(1))


# Shared code: what serves every game must not name one. Each game's own modules are the exception:
# its engine package or module, its renderer, samples and palette, its panel, its computer players
# (``engine/ai/<game>_*.py``), its kit and its rules page.
PRODUCT = ("engine", "render", "bot", "cogs", "kits")
GAMES = tuple(KITS)
"""The registered games, each owning the modules named after it (``owner``)."""
OWN_EXTRA = {"engine/ai/pubeval.py": "backgammon"}
"""A game's module whose name does not start with the game's: Tesauro's backgammon evaluator."""


def owner(path: Path) -> str | None:
    """The game a product module belongs to, ``None`` for shared code."""
    relative = path.relative_to(ROOT).as_posix()
    if relative in OWN_EXTRA:
        return OWN_EXTRA[relative]
    for game in GAMES:
        if f"/{game}/" in f"/{relative}" or path.stem == game or path.stem.startswith(f"{game}_"):
            return game
    return None


SHARED = [
    path
    for package in PRODUCT
    for path in sorted((ROOT / package).rglob("*.py"))
    if (owner(path) is None and path.name != "__main__.py") or path.parent.name in PRODUCT
]
SHARED = sorted({p for p in SHARED if owner(p) is None})


def test_each_kit_module_is_registered_under_its_own_name() -> None:
    modules = {p.stem for p in (ROOT / "kits").glob("*.py")} - {"__init__", "base"}
    assert modules == set(KITS), "kits/<game>.py declares the kit whose key is <game>, registered once"
    assert all(KITS[key].variant.get().key == key for key in KITS)


def test_shared_code_is_most_of_the_product() -> None:
    assert len(SHARED) > 60 and ROOT / "engine" / "__main__.py" in SHARED


def imported_modules(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return names


def code_names(text: str) -> set[str]:
    """The identifiers of the code (not its comments or docstrings), split at underscores, lowercased."""
    words: set[str] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME:
            words.update(part.lower() for part in token.string.split("_") if part)
    return words


REGISTRY = ROOT / "kits" / "__init__.py"
"""The one place that names every game: one ``register`` line each."""


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_code_names_no_game(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if path == REGISTRY:
        registered = re.findall(r'^KITS\.register_module\("kits\.(\w+)"\)$', text, re.MULTILINE)
        assert sorted(registered) == sorted(GAMES), "one register_module line per game, nothing else"
        assert not any(literal in text for key in GAMES for literal in (f'"{key}"', f"'{key}'"))
        return
    names = code_names(text)
    for module in imported_modules(ast.parse(text)):
        parts = module.split(".")
        for game in GAMES:
            assert not any(p == game or p.startswith(f"{game}_") for p in parts), (
                f"{path.name} imports {module}: take the game's parts from its kit"
            )
    for key in GAMES:
        variant = KITS[key].variant.get()
        literal = re.compile(rf"""["']{re.escape(key)}["']""")
        assert not literal.search(text), (
            f"{path.relative_to(ROOT)} names the game {key!r}: take it from the kit"
        )
        assert key not in names, f"{path.relative_to(ROOT)} has code named after {key!r}"
        if path.parent.name in ("render", "engine", "ai"):
            continue  # their docstrings use a seat's colour as a word ("Red", "White")
        for seat in variant.seat_names:
            # A seat's name in shared Discord or process code is one game leaking out.
            assert not re.search(rf"\b{re.escape(seat)}\b", text), f"{path.name} names {key}'s seat {seat}"


# -- a game added through its kit alone --------------------------------------------------------------


@pytest.fixture
def duel_kit(monkeypatch: pytest.MonkeyPatch) -> GameKit:
    from tests.games import duel
    from tests.support import register_kit

    register_kit(monkeypatch, duel.KIT)
    return duel.KIT


def test_the_toy_game_fills_the_recipe_and_is_in_every_table(duel_kit: GameKit) -> None:
    check_kit(duel_kit)
    for name, table in REGISTRIES.items():
        assert "duel" in table, f"{name} does not see a game registered through its kit"
    assert "duel" not in HINTS and "duel" not in RULES_SHEETS and "duel" not in PALETTES


def test_the_toy_game_plays_in_the_arena(duel_kit: GameKit) -> None:
    from engine.ai.arena import arena

    report = arena(VARIANTS["duel"], ("greedy", "random"), 6, 3)
    assert report["games"] == 6


def test_the_toy_game_runs_in_the_engine_command_line(
    duel_kit: GameKit, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from engine.__main__ import main

    assert main(["selfplay", "--game", "duel", "--games", "5", "--seed", "2"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 5
    assert main(["arena", "--game", "duel", "--players", "greedy,random", "--games", "4"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 4
    state = VARIANTS["duel"].new_game()
    dealt = state.apply(state.chance_action(tuple(range(8))))
    saved = tmp_path / "duel.json"
    saved.write_text(dealt.canonical())
    assert main(["move", "--game", "duel", "--level", "greedy", "--state", str(saved)]) == 0
    chosen = capsys.readouterr().out.strip()
    assert chosen in {a.notation for a in dealt.legal_actions()}


def test_the_toy_game_has_sample_pictures(duel_kit: GameKit, tmp_path: Path) -> None:
    from render.__main__ import main

    assert main(["sample", "--game", "duel", "--out", str(tmp_path), "--only", "start"]) == 0
    assert (tmp_path / "duel-start.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.asyncio
async def test_the_toy_game_is_played_in_the_sandbox_across_a_restart(
    duel_kit: GameKit, tmp_path: Path
) -> None:
    from sandbox import Sandbox

    lines: list[str] = []
    async with Sandbox.open(seed=3, pictures=tmp_path, out=lines.append) as sandbox:
        failed = await sandbox.run_lines(
            ["as alice /challenge opponent:@bob game:duel", "as bob click Accept", "restart", "show 1"]
        )
    assert failed == 0, "\n".join(lines)
    assert any("Duel" in line for line in lines) and list(tmp_path.glob("*.png"))


@pytest.mark.asyncio
async def test_a_whole_match_of_the_toy_game_through_the_fake_discord(
    duel_kit: GameKit, fake: object, tmp_path: Path
) -> None:
    from fakediscord import FakeDiscord
    from fakediscord.matches import challenge_and_accept, play_until_over
    from tests.support import start_bot, stop_bot

    assert isinstance(fake, FakeDiscord)
    bot = await start_bot(fake, tmp_path / "db.sqlite3")
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    board = await challenge_and_accept(fake, alice, bob, "duel")
    result = await play_until_over(fake, board.channel_id, {alice.id: alice, bob.id: bob}, random.Random(4))
    assert result.content.startswith("🏆")
    (record,) = [r for r in await bot.store.matches.recent(alice.id, 5) if r.game == "duel"]
    assert record.status != "active"
    await stop_bot(bot)


def test_a_kit_part_names_its_object_lazily() -> None:
    part: Part[Callable[..., object]] = Part("json:dumps")
    assert part.get() is json.dumps
    with pytest.raises(ValueError, match="registered already"):
        KITS.register(KITS["ring"])
    assert Coach(hint=Part(len), analysis=Part(len)).hint.get() is len


def test_the_recipe_for_a_new_game_names_every_field_of_a_kit() -> None:
    import dataclasses

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    recipe = text.split("## Adding a game", 1)[1].split("\n## ", 1)[0]
    missing = [f.name for f in dataclasses.fields(GameKit) if f"`{f.name}`" not in recipe]
    assert missing == [], f"docs/architecture.md's recipe does not say where these go: {missing}"
