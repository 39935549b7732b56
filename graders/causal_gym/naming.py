"""The naming stream: a domain and distinct plausible column names for every observed variable."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graders.causal_gym.vocab import DOMAINS, Domain, Term


@dataclass(frozen=True)
class Naming:
    """Chosen vocabulary: a domain, treatment and outcome terms, shuffled pools, a trap term."""

    domain: Domain
    treatment: Term
    outcome: Term
    pre: tuple[Term, ...]
    post: tuple[Term, ...]
    trap: Term


def pick_naming(rng: np.random.Generator) -> Naming:
    """Draw a domain, a treatment, an outcome, shuffled covariate pools and a trap name."""
    domain = DOMAINS[int(rng.integers(len(DOMAINS)))]
    treatment = domain.treatments[int(rng.integers(len(domain.treatments)))]
    outcome = domain.outcomes[int(rng.integers(len(domain.outcomes)))]
    pre = tuple(domain.pre[i] for i in rng.permutation(len(domain.pre)))
    post = tuple(domain.post[i] for i in rng.permutation(len(domain.post)))
    trap = domain.traps[int(rng.integers(len(domain.traps)))]
    return Naming(
        domain=domain, treatment=treatment, outcome=outcome, pre=pre, post=post, trap=trap
    )
