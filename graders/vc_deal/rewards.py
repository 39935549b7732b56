"""Reward and metric functions for an RL environment: (completion, answer) in, 0.0 or 1.0 out."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graders.vc_deal.extract import Completion
from graders.vc_deal.gold import Amount
from graders.vc_deal.verdicts import grade_completion

RewardFunction = Callable[..., float]
"""Called as f(completion, answer, **extra); extra keyword arguments are ignored."""


def strict_correct(completion: Completion, answer: Amount, **_: Any) -> float:
    """1.0 when the extracted number equals the gold at cents (both rounded half-up)."""
    return grade_completion(completion, answer).strict_correct


def loose_correct(completion: Completion, answer: Amount, **_: Any) -> float:
    """1.0 when the extracted number is within 0.50 points of the gold, inclusive."""
    return grade_completion(completion, answer).loose_correct


def format_valid_number(completion: Completion, answer: Amount, **_: Any) -> float:
    """1.0 when any number could be extracted at all, right or wrong."""
    return grade_completion(completion, answer).format_valid_number


def reward(completion: Completion, answer: Amount, loose: bool = False, **_: Any) -> float:
    """The scalar reward: the strict verdict by default, the loose one when asked."""
    return grade_completion(completion, answer).reward(loose)


def strict_reward(completion: Completion, answer: Amount, **_: Any) -> float:
    """The weight-1 reward of a strict rubric (same value as `strict_correct`)."""
    return grade_completion(completion, answer).strict_correct


def loose_reward(completion: Completion, answer: Amount, **_: Any) -> float:
    """The weight-1 reward of a loose rubric (same value as `loose_correct`)."""
    return grade_completion(completion, answer).loose_correct


def metrics(completion: Completion, answer: Amount, loose: bool = False) -> dict[str, float]:
    """The reward and all three verdicts from a single extraction."""
    found = grade_completion(completion, answer)
    return {
        "reward": found.reward(loose),
        "strict_correct": found.strict_correct,
        "loose_correct": found.loose_correct,
        "format_valid_number": found.format_valid_number,
    }


def rubric(loose: bool = False) -> tuple[tuple[RewardFunction, float], ...]:
    """(function, weight) pairs: the chosen grader at weight 1, all three verdicts at weight 0."""
    return (
        (loose_reward if loose else strict_reward, 1.0),
        (strict_correct, 0.0),
        (loose_correct, 0.0),
        (format_valid_number, 0.0),
    )
