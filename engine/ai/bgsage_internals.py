"""The three bgsage internals the analysis reads, and the only module that reads them.

Every other module uses bgsage's public names only (``python3 privcheck.py engine`` lists the
reads of this module and nothing else of bgsage's). The analysis (``engine.ai.backgammon_filter``)
asks ``bgbot_cpp``, bgsage's C++ core, directly: its move filters evaluate one play at a time, and
its cube decisions share their trees with the checker plays. Those calls take objects bgsage builds and keeps but offers no public name for. So
they are read here, and only here: ``bgsage>=2.0,<2.1`` is pinned in pyproject.toml, and a bgsage
release that renames them breaks this module alone (the analysis's tests say so at once).

- ``network``: the 1-ply network strategy of an analyzer (its 24 networks loaded once, wrapped in
  the bear-off database), what every ``bgbot_cpp`` evaluation takes.
- ``bearoff_db``: its bear-off database (None when bgsage found none).
- ``weights``: its network files (``strategy_type``, ``weight_paths_list``, ``hidden_sizes_list``),
  for the ``bgbot_cpp`` calls that load the networks themselves.
"""

from __future__ import annotations

from typing import Any

from bgsage import BgBotAnalyzer


def _cubeless(sage: BgBotAnalyzer) -> Any:
    """The cubeless analyzer inside ``sage``, a cubeful analyzer (``cubeful=True``)."""
    return sage._analyzer._inner


def network(sage: BgBotAnalyzer) -> Any:
    """The 1-ply network strategy of ``sage`` (a ``bgbot_cpp.Strategy``, bear-off aware)."""
    return _cubeless(sage)._strategy_1ply


def bearoff_db(sage: BgBotAnalyzer) -> Any:
    """The bear-off database of ``sage`` (a ``bgbot_cpp.BearoffDB``), or None."""
    return _cubeless(sage)._bearoff_db


def weights(sage: BgBotAnalyzer) -> Any:
    """The network files of ``sage`` (bgsage's ``WeightConfig``)."""
    return _cubeless(sage)._weights
