"""The agent-visible README.md: data dictionary, estimand, assumptions and submission schema."""

from __future__ import annotations

import json
from typing import Final

import numpy as np

from graders.causal_gym.dictionary import Dictionary
from graders.causal_gym.families import family
from graders.causal_gym.submission import schema_text

INTROS: Final[tuple[str, ...]] = (
    "An analyst collected observational records, one row per {unit}, to learn whether "
    "`{t}` changes `{y}`.",
    "These observational records (one row per {unit}) were gathered to measure the effect "
    "of `{t}` on `{y}`.",
    "Each row of `data.csv` describes one {unit}. Treatment was not randomised; the question "
    "is how much `{t}` moves `{y}`.",
)

EXAMPLES: Final[dict[str, dict[str, object]]] = {
    "ate": {"estimate": 1.25, "interval": [0.8, 1.7]},
    "adjustment": {"estimate": 1.25, "interval": [0.8, 1.7], "adjustment_set": ["<column>"]},
    "null_detect": {"estimate": 1.25, "interval": [0.8, 1.7], "effect_probability": 0.7},
}

IGNORABILITY: Final[str] = (
    "- Conditional ignorability: given the observed pre-treatment covariates, treatment "
    "assignment is independent of the potential outcomes."
)
IGNORABILITY_SUBSET: Final[str] = (
    "- Conditional ignorability: given a suitable subset of the observed pre-treatment "
    "covariates (not necessarily all of them), treatment assignment is independent of the "
    "potential outcomes. The descriptions say what is known about how each column arose."
)
"""The adjustment family's version: a pre-treatment column may be wrong to adjust for."""

EXTRA: Final[dict[str, str]] = {
    "ate": "",
    "adjustment": (
        "`adjustment_set` lists the columns you adjusted for. It is valid when it holds only "
        "pre-treatment columns and satisfies the backdoor criterion in the true causal graph; "
        "validity is worth 30% of the reward.\n"
    ),
    "null_detect": (
        "`effect_probability` is your probability that the treatment has any causal effect on "
        "the outcome. Across this family 13 tasks in 20 have an effect (7 in 20 have no causal "
        "path from treatment to outcome at all); its Brier skill against that prior is worth "
        "10% of the reward.\n"
    ),
}


def render_readme(
    dictionary: Dictionary, family_name: str, rows: int, rng: np.random.Generator
) -> str:
    """Render the README; the prompt stream picks the wording of the introduction."""
    t, y = dictionary.treatment, dictionary.outcome
    fam = family(family_name)
    intro = INTROS[int(rng.integers(len(INTROS)))].format(unit=dictionary.unit, t=t, y=y)
    table = "\n".join(f"| `{c.name}` | {c.label} | {c.description} |" for c in dictionary.columns)
    lines = [
        f"# Effect of `{t}` on `{y}`",
        "",
        intro,
        "",
        "## Estimand",
        "",
        f"The population average treatment effect of `{t}` on `{y}`: "
        f"E[{y} | do({t} = 1)] - E[{y} | do({t} = 0)], in the units of `{y}`.",
        "",
        "## Assumptions",
        "",
        IGNORABILITY_SUBSET if fam.traps else IGNORABILITY,
        "- Consistency: each row's outcome is its potential outcome under the treatment it got.",
        "- Positivity: every covariate profile has a nonzero chance of either treatment value.",
        "",
        "## Data dictionary",
        "",
        f"`data.csv` has {rows} rows and {len(dictionary.columns)} columns. Timing says whether "
        "a column was fixed before treatment (pre-treatment) or measured after it "
        "(post-treatment); the treatment column is labelled as such.",
        "",
        "| column | timing | description |",
        "| --- | --- | --- |",
        table,
        "",
        "The file is as collected: it may contain exact duplicate records, gross recording "
        "errors in the outcome and missing values (empty cells).",
        "",
        "## Submission",
        "",
        f"Family `{family_name}`: {fam.summary}. Submit one JSON object; the first valid "
        "submission is final, and an invalid one returns only its validation errors.",
        f"`interval` is a 90% interval [lo, hi] for the effect. {EXTRA[family_name]}",
        "Example (illustrative numbers):",
        "",
        "```json",
        json.dumps(EXAMPLES[family_name]),
        "```",
        "",
        "JSON Schema:",
        "",
        "```json",
        schema_text(family_name),
        "```",
        "",
        "## Scoring",
        "",
        "Loss L = W + |estimate - truth| + 2 x max(0, r - width), where W is the Winkler "
        "interval score with alpha = 0.12 and r is the width of a reference 90% interval from "
        "adjusted OLS on this file. The estimand reward is 1 - L / s, where s is the standard "
        f"deviation of `{y}` in this file; it has no lower bound.",
        "",
    ]
    return "\n".join(lines)
