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
FAST_LIMIT: Final[float] = 1e11
"""Largest magnitude the vectorised writer handles (integers stay exact); beyond, pandas."""
_ZERO: Final[int] = ord("0")


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


def pandas_csv(frame: pd.DataFrame) -> str:
    """Deterministic CSV text: values rounded to 4 decimals, empty cells when missing, LF ends."""
    rounded = frame.round(DECIMALS)
    return rounded.to_csv(index=False, na_rep="", lineterminator="\n")


def to_csv(frame: pd.DataFrame) -> str:
    """The same bytes as `pandas_csv`, about four times faster (it dominated generation).

    Each cell is built as a row of ASCII bytes in numpy, with 0 bytes where a shorter number
    has no character; dropping the 0 bytes leaves the text. A value rounded to 4 decimals
    prints as its shortest round-trip form, which is its decimal digits with trailing zeros
    dropped (at least one kept), exactly as pandas prints it. Column names are plain words.
    """
    columns = [frame[name].to_numpy() for name in frame.columns]
    floats = [np.round(c, DECIMALS) if c.dtype.kind == "f" else c for c in columns]
    if any(c.dtype.kind not in "fiu" for c in floats) or any(
        np.nanmax(np.abs(c), initial=0.0) >= FAST_LIMIT for c in floats
    ):
        return pandas_csv(frame)
    blocks: list[np.ndarray] = []
    for i, values in enumerate(floats):
        blocks.append(_cells(values))
        end = "," if i < len(floats) - 1 else "\n"
        blocks.append(np.full((len(frame), 1), ord(end), dtype=np.uint8))
    body = np.concatenate(blocks, axis=1).ravel() if blocks else np.empty(0, np.uint8)
    return ",".join(map(str, frame.columns)) + "\n" + body[body != 0].tobytes().decode("ascii")


def _digits(whole: np.ndarray) -> np.ndarray:
    """Decimal digits of non-negative integers, right-aligned, leading positions as 0 bytes."""
    width = len(str(int(whole.max()))) if whole.size else 1
    out = np.empty((len(whole), width), dtype=np.uint8)
    rest = whole.copy()
    for j in range(width - 1, -1, -1):
        rest, digit = np.divmod(rest, 10)
        out[:, j] = digit + _ZERO
    for j in range(width - 1):
        out[whole < 10 ** (width - 1 - j), j] = 0
    return out


def _cells(values: np.ndarray) -> np.ndarray:
    """One column's cells as bytes: sign, integer digits, then (floats) up to 4 decimals."""
    if values.dtype.kind in "iu":
        whole = values.astype(np.int64)
        sign = np.where(whole < 0, ord("-"), 0).astype(np.uint8)[:, None]
        return np.concatenate([sign, _digits(np.abs(whole))], axis=1)
    missing = np.isnan(values)
    safe = np.where(missing, 0.0, values)
    scaled = np.rint(np.abs(safe) * 10**DECIMALS).astype(np.int64)
    whole, fraction = np.divmod(scaled, 10**DECIMALS)
    sign = np.where(np.signbit(safe) & ~missing, ord("-"), 0).astype(np.uint8)[:, None]
    decimals = np.empty((len(values), DECIMALS + 1), dtype=np.uint8)
    decimals[:, 0] = ord(".")
    rest = fraction.copy()
    for j in range(DECIMALS, 0, -1):
        rest, digit = np.divmod(rest, 10)
        decimals[:, j] = digit + _ZERO
    for j in range(2, DECIMALS + 1):
        decimals[fraction % 10 ** (DECIMALS + 1 - j) == 0, j] = 0
    cells = np.concatenate([sign, _digits(whole), decimals], axis=1)
    cells[missing] = 0
    return cells


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
