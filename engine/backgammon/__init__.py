"""Backgammon: rules, match and cube, notation and interchange formats."""
