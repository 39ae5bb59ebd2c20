"""Pig's sample pictures (``python -m render sample --game pig``)."""

from __future__ import annotations

from engine.pig import PigWin
from render.samples import SampleSet, situation_samples

SITUATIONS = {"holding": lambda state: state.total >= 10}

SAMPLES = SampleSet(
    ("start", *SITUATIONS, *(f"won-{reason}" for reason in PigWin)),
    lambda seed, wanted: situation_samples("pig", SITUATIONS, len(PigWin), seed, wanted),
)
