"""The item generator: deterministic easy and hard deal-math items from (num_examples, seed)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import count, islice
from math import gcd
from typing import Literal

from graders.vc_deal.gold import gold_ownership
from graders.vc_deal.guard import leak_reason
from graders.vc_deal.money import MILLION, render_money, short_millions, snap
from graders.vc_deal.templates import TemplateBank, load_templates

Difficulty = Literal["easy", "hard"]
DIFFICULTIES: tuple[Difficulty, ...] = ("easy", "hard")

DEFAULT_NUM_EXAMPLES = 256
DEFAULT_SEED = 42
MAX_NUM_EXAMPLES = 100_000
"""The most items one dataset holds (about 50 MB of JSONL, 8 s and 270 MB to make here):
every slot remembers the questions before it, so an unbounded count exhausts memory."""
MAX_ATTEMPTS = 1000
"""Candidates tried for one slot before concluding the template bank cannot fill it."""

EASY_BAND = (5, 55)
"""Easy answers, in percent: one-decimal exact, never whole."""

HARD_BAND = (8, 55)
"""Hard answers, in percent: two decimals, never .00 or .50."""


class GenerationError(ValueError):
    """The generator was asked for something it cannot produce."""


@dataclass(frozen=True, slots=True)
class Item:
    """One deal-math question with its gold answer and the figures behind it."""

    scenario: str
    question: str
    answer: float
    difficulty: Difficulty
    raise_amount: int
    pre_money: int
    ownership: float

    @property
    def post_money(self) -> int:
        """Post-money valuation: pre-money plus the new money."""
        return self.pre_money + self.raise_amount

    def to_row(self) -> dict[str, object]:
        """The dataset row: question, answer and info, as the RL environment consumes it."""
        return {
            "question": self.question,
            "answer": self.answer,
            "info": {
                "difficulty": self.difficulty,
                "raise": self.raise_amount,
                "pre_money": self.pre_money,
                "post_money": self.post_money,
                "ownership": self.ownership,
            },
        }


@cache
def _easy_pairs() -> dict[int, tuple[tuple[int, int], ...]]:
    """(raise, pre) in whole $M, keyed by answer in tenths: one-decimal exact, never whole."""
    pairs: dict[int, list[tuple[int, int]]] = {}
    for post in range(2, 1101):
        step = post // gcd(post, 1000)
        for raise_m in range(step, min(post, 101), step):
            pre_m = post - raise_m
            tenths = 1000 * raise_m // post
            if pre_m <= 1000 and tenths % 10 and 10 * EASY_BAND[0] <= tenths <= 10 * EASY_BAND[1]:
                pairs.setdefault(tenths, []).append((raise_m, pre_m))
    return {tenths: tuple(found) for tenths, found in sorted(pairs.items())}


@cache
def _easy_answers() -> tuple[int, ...]:
    """The easy answers in tenths, drawn uniformly so no one answer dominates."""
    return tuple(_easy_pairs())


def _names(rng: random.Random, bank: TemplateBank) -> dict[str, str]:
    """Company, investor, round and sector, drawn in a fixed order."""
    return {
        "company": rng.choice(bank.companies),
        "investor": rng.choice(bank.investors),
        "round": rng.choice(bank.rounds),
        "sector": rng.choice(bank.sectors),
    }


def _item(
    bank: TemplateBank, scenario: str, difficulty: Difficulty, raise_amount: int, pre: int
) -> Item:
    """Assemble an item, computing the gold answer in code."""
    answer = gold_ownership(raise_amount, pre)
    exact = Fraction(100 * raise_amount, raise_amount + pre)
    question = f"{scenario}\n\n{bank.instruction}"
    return Item(scenario, question, float(answer), difficulty, raise_amount, pre, float(exact))


def easy_candidate(rng: random.Random, bank: TemplateBank) -> Item:
    """One short sentence, clean "$XM" figures, an answer like 12.5 in the easy band."""
    pairs = _easy_pairs()
    tenths = rng.choice(_easy_answers())
    raise_m, pre_m = rng.choice(pairs[tenths])
    template = rng.choice(bank.easy)
    fields = _names(rng, bank)
    raise_amount, pre = raise_m * MILLION, pre_m * MILLION
    fields |= {"raise": short_millions(raise_amount), "pre": short_millions(pre)}
    scenario = template.format_map(fields)
    return _item(bank, scenario, "easy", raise_amount, pre)


def _draw_raise(rng: random.Random) -> int:
    """An ugly raise in dollars, from $150K seed cheques to $600M growth rounds."""
    low, high = rng.choice(
        (
            (150_000, 1_000_000),
            (1_000_000, 10_000_000),
            (10_000_000, 100_000_000),
            (100_000_000, 600_000_000),
        )
    )
    return snap(rng.randrange(low, high))


def _hard_figures(rng: random.Random) -> tuple[int, int]:
    """Raise and pre-money whose answer is in 8-55 and never lands on .00 or .50."""
    while True:
        raise_amount = _draw_raise(rng)
        basis_points = rng.randrange(100 * HARD_BAND[0], 100 * HARD_BAND[1] + 1)
        pre = snap(raise_amount * (10_000 - basis_points) // basis_points)
        answer = gold_ownership(raise_amount, pre)
        cents = int(answer * 100) % 100
        if HARD_BAND[0] <= answer <= HARD_BAND[1] and cents not in (0, 50):
            return raise_amount, pre


def hard_candidate(rng: random.Random, bank: TemplateBank) -> Item:
    """Messier prose, mixed money formats, one or two distractor numbers, a 2-dp answer."""
    raise_amount, pre = _hard_figures(rng)
    template = rng.choice(bank.hard)
    fields = _names(rng, bank)
    fields |= {
        "raise": render_money(raise_amount, rng),
        "pre": render_money(pre, rng),
        "year": str(rng.randrange(2004, 2024)),
        "headcount": str(rng.randrange(6, 481)),
        "arr": render_money(snap(rng.randrange(200_000, 40_000_000)), rng),
        "firms": str(rng.randrange(2, 10)),
    }
    scenario = template.format_map(fields)
    return _item(bank, scenario, "hard", raise_amount, pre)


def iter_items(seed: int = DEFAULT_SEED, bank: TemplateBank | None = None) -> Iterator[Item]:
    """The endless item sequence for a seed: easy, hard, easy, ... from two separate streams.

    Each slot takes the next candidate of its stream that neither leaks nor repeats an
    earlier question, so every prefix is independent of how many items follow.
    """
    bank = bank or default_bank()
    streams = {
        "easy": (random.Random(f"vc-deal/easy/{seed}"), easy_candidate),
        "hard": (random.Random(f"vc-deal/hard/{seed}"), hard_candidate),
    }
    seen: set[str] = set()
    for position in count():
        difficulty = DIFFICULTIES[position % 2]
        rng, candidate = streams[difficulty]
        for _ in range(MAX_ATTEMPTS):
            item = candidate(rng, bank)
            if item.question not in seen and leak_reason(item.scenario, item.answer) is None:
                break
        else:
            raise GenerationError(
                f"no new non-leaking {difficulty} item after {MAX_ATTEMPTS} tries at position "
                f"{position}: the template bank is too small for this many items"
            )
        seen.add(item.question)
        yield item


def generate(
    num_examples: int = DEFAULT_NUM_EXAMPLES,
    seed: int = DEFAULT_SEED,
    bank: TemplateBank | None = None,
) -> tuple[Item, ...]:
    """The dataset: `num_examples` items, half easy (the extra one when odd), half hard."""
    if not 1 <= num_examples <= MAX_NUM_EXAMPLES:
        raise GenerationError(
            f"num_examples must be from 1 to {MAX_NUM_EXAMPLES}, got {_short(num_examples)}"
        )
    return tuple(islice(iter_items(seed, bank), num_examples))


def item_at(
    difficulty: Difficulty,
    seed: int = DEFAULT_SEED,
    index: int = 0,
    bank: TemplateBank | None = None,
) -> Item:
    """The `index`-th item of one difficulty in the dataset for `seed`."""
    if difficulty not in DIFFICULTIES:
        raise GenerationError(f"difficulty must be 'easy' or 'hard', got {difficulty!r}")
    if not 0 <= index < MAX_NUM_EXAMPLES // 2:
        raise GenerationError(
            f"index must be from 0 to {MAX_NUM_EXAMPLES // 2 - 1} (a dataset holds at most "
            f"{MAX_NUM_EXAMPLES} items), got {_short(index)}"
        )
    position = 2 * index + DIFFICULTIES.index(difficulty)
    return next(islice(iter_items(seed, bank), position, None))


def _short(number: int) -> str:
    """`number` for a message: in full up to 30 digits (a longer one is never echoed)."""
    return str(number) if abs(number) < 10**30 else "a number of over 30 digits"


@cache
def default_bank() -> TemplateBank:
    """The bundled template bank, loaded once."""
    return load_templates()
