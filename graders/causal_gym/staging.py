"""Staging: the agent-visible folder, exactly data.csv and README.md, plus the frame parsed back."""

from __future__ import annotations

import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd

from graders.causal_gym.dictionary import Dictionary, build_dictionary
from graders.causal_gym.messiness import Mess, make_messy
from graders.causal_gym.naming import Naming
from graders.causal_gym.readme import render_readme
from graders.causal_gym.scm import SCM

DATA_FILE: Final[str] = "data.csv"
README_FILE: Final[str] = "README.md"
DECIMALS: Final[int] = 4


@dataclass(frozen=True, eq=False)
class Staged:
    """The staged files' text, the frame parsed back from data.csv, and host-side notes."""

    csv_text: str
    readme_text: str
    frame: pd.DataFrame
    dictionary: Dictionary
    mess: Mess

    def files(self) -> dict[str, str]:
        """The agent-visible folder: file name to text, nothing else."""
        return {DATA_FILE: self.csv_text, README_FILE: self.readme_text}


def clean_frame(dictionary: Dictionary, sample: Mapping[str, np.ndarray]) -> pd.DataFrame:
    """Map simulated values to staged columns (affine, rounded); the treatment stays 0/1."""
    data: dict[str, np.ndarray] = {}
    for column in dictionary.columns:
        values = sample[column.node]
        if column.timing == "treatment":
            data[column.name] = values.astype(np.int64)
        else:
            data[column.name] = np.round(column.loc + column.scale * values, DECIMALS)
    return pd.DataFrame(data)


def to_csv(frame: pd.DataFrame) -> str:
    """Deterministic CSV text: values rounded to 4 decimals, empty cells when missing, LF ends."""
    rounded = frame.round(DECIMALS)
    return rounded.to_csv(index=False, na_rep="", lineterminator="\n")


def stage(
    scm: SCM,
    sample: Mapping[str, np.ndarray],
    naming: Naming,
    family_name: str,
    messiness: np.random.Generator,
    prompt: np.random.Generator,
) -> Staged:
    """Build both files: the prompt stream orders columns and words the README."""
    observed = sum(1 for node in scm.nodes if node.observed)
    dictionary = build_dictionary(scm, naming, [int(i) for i in prompt.permutation(observed)])
    messy, mess = make_messy(
        clean_frame(dictionary, sample), dictionary.outcome, dictionary.pre_treatment, messiness
    )
    csv_text = to_csv(messy)
    frame = pd.read_csv(io.StringIO(csv_text))
    readme_text = render_readme(dictionary, family_name, len(frame), prompt)
    return Staged(csv_text, readme_text, frame, dictionary, mess)
