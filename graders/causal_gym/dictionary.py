"""The data dictionary: staged column names, their timing labels and one-line descriptions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from graders.causal_gym.naming import Naming
from graders.causal_gym.scm import ADJUSTABLE_ROLES, OUTCOME, POST_ROLES, PRE_ROLES, SCM, TREATMENT
from graders.causal_gym.vocab import Term

Timing = Literal["pre-treatment", "treatment", "outcome", "post-treatment"]

TRAP_DESCRIPTIONS: Final[dict[str, str]] = {
    "m_bias": (
        "{base}. It reflects an unrecorded factor that also influenced who received `{t}` and "
        "a separate unrecorded factor that also affects `{y}`; it does not affect `{y}` itself"
    ),
    "proxy": (
        "{base}. It reflects an unrecorded factor that also influenced who received `{t}`, "
        "and it affects `{y}` directly"
    ),
}
"""How a trap column's description says what drives it, so the adjustment choice is decidable."""


@dataclass(frozen=True)
class Column:
    """One staged column: its name, the node it measures, timing, description and affine map.

    `adjustable` is host-side: False only for an M-bias column, which a valid backdoor
    adjustment must leave out.
    """

    name: str
    node: str
    timing: Timing
    description: str
    loc: float
    scale: float
    adjustable: bool = False

    @property
    def label(self) -> str:
        """The README's timing label: the outcome reads as post-treatment too."""
        return "post-treatment (outcome)" if self.timing == "outcome" else self.timing


@dataclass(frozen=True)
class Dictionary:
    """Every observed column in staged order, plus the unit of observation."""

    columns: tuple[Column, ...]
    unit: str

    def _named(self, timing: Timing) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.timing == timing)

    @property
    def treatment(self) -> str:
        """Name of the treatment column."""
        return self._named("treatment")[0]

    @property
    def outcome(self) -> str:
        """Name of the outcome column."""
        return self._named("outcome")[0]

    @property
    def pre_treatment(self) -> tuple[str, ...]:
        """Names of the pre-treatment covariates, in staged order."""
        return self._named("pre-treatment")

    @property
    def adjustable(self) -> tuple[str, ...]:
        """The pre-treatment columns of the certified adjustment set, in staged order."""
        return tuple(c.name for c in self.columns if c.timing == "pre-treatment" and c.adjustable)

    @property
    def post_treatment(self) -> tuple[str, ...]:
        """Names of the post-treatment variables other than the outcome, in staged order."""
        return self._named("post-treatment")

    def node_of(self, name: str) -> str:
        """The graph node behind a column name; raises KeyError for unknown names."""
        for column in self.columns:
            if column.name == name:
                return column.node
        raise KeyError(name)


def build_dictionary(scm: SCM, naming: Naming, order: list[int]) -> Dictionary:
    """Name every observed node from the naming pools; `order` permutes the staged columns."""
    pre = iter(naming.pre)
    post = iter(naming.post)
    columns: list[Column] = []
    for node in scm.nodes:
        timing: Timing
        if node.id == TREATMENT:
            term, timing = naming.treatment, "treatment"
        elif node.id == OUTCOME:
            term, timing = naming.outcome, "outcome"
        elif node.role in TRAP_DESCRIPTIONS:
            base = naming.trap
            text = TRAP_DESCRIPTIONS[node.role].format(
                base=base.description, t=naming.treatment.name, y=naming.outcome.name
            )
            term, timing = Term(base.name, text, base.loc, base.scale), "pre-treatment"
        elif node.role in PRE_ROLES:
            term, timing = next(pre), "pre-treatment"
        elif node.role in POST_ROLES:
            term, timing = next(post), "post-treatment"
        else:
            continue
        columns.append(_column(term, node.id, timing, node.role in ADJUSTABLE_ROLES))
    return Dictionary(tuple(columns[i] for i in order), naming.domain.unit)


def _column(term: Term, node: str, timing: Timing, adjustable: bool) -> Column:
    """A column from a vocabulary term; the outcome keeps the SCM's scale (shift only)."""
    scale = 1.0 if timing in ("treatment", "outcome") else term.scale
    loc = 0.0 if timing == "treatment" else term.loc
    return Column(term.name, node, timing, term.description, loc, scale, adjustable)
