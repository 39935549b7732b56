"""An autosealed command hashes only what it posted: play cost does not grow with the day."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import orjson
import pytest

from ledger import book as book_module
from workbench.play.session import PlayerSession
from workbench.runs.verify import verify_run


def test_autoseal_hashes_only_the_new_transactions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = PlayerSession.create(tmp_path / "run", autoseal=True)
    session.schedule("bank_loan")
    session.advance(60)
    encoded: list[int] = []
    original = book_module.encode_transactions
    monkeypatch.setattr(
        book_module,
        "encode_transactions",
        lambda txns: encoded.append(len(txns)) or original(txns),
    )
    session.advance(1)
    monkeypatch.undo()
    day_61 = {
        row["seq"]
        for row in csv.DictReader(io.StringIO(session.ledger().export("csv")))
        if row["day"] == "61"
    }
    assert day_61 and encoded == [len(day_61)]
    seal = orjson.loads((tmp_path / "run" / "seal.json").read_bytes())
    assert verify_run(tmp_path / "run").ok
    assert seal["final_day"] == 61
