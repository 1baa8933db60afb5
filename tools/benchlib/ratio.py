# SPDX-License-Identifier: BSD-3-Clause
"""Figures against a baseline measured in the same run. A baseline that found no rate
gives no ratio: an empty CSV cell and "n/a" on screen, never a 0 that reads as 0 %."""


def ratio(value, baseline):
    return value / baseline if baseline else None


def shown(r):
    return "n/a" if r is None else f"x{r:.2f}"
