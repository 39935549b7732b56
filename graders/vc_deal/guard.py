"""The no-leakage guard: a scenario must not state, hint at or name its own answer."""

from __future__ import annotations

import re

from graders.vc_deal.extract import NUMBER, normalise
from graders.vc_deal.gold import Amount, round_cents, to_decimal
from graders.vc_deal.templates import GIVEAWAY

_TOKEN = re.compile(NUMBER)


def leak_reason(scenario: str, answer: Amount) -> str | None:
    """Why the scenario leaks its answer ("%", "percent", a giveaway word, the number), or None."""
    found = GIVEAWAY.search(scenario)
    if found:
        return f"mentions {found[0]!r}"
    gold = round_cents(to_decimal(answer))
    for token in _TOKEN.findall(scenario):
        value = normalise(token)
        if value is not None and round_cents(value) == gold:
            return f"states the answer as {token!r}"
    return None
