"""A key refused for its form says what is wrong with it, never showing it.

A key of hex digits only, one short or one too many (31 or 33 digits: a digit lost in a copy),
was refused as "not hexadecimal", which sends the user looking for a stray letter.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from graders.causal_gym.keys import KEY_ENV, DerivationError, parse_key
from workbench.cli import main

SECRET = "c0ffee5eed0fca05a1c0de9e70a11ab1e5ca1ab1ec0ffee5eed0fca05a1c0de9"


@pytest.mark.parametrize(
    ("key", "needle"),
    [
        (SECRET[:31], "has an odd number of hex digits (31)"),
        (SECRET[:33], "has an odd number of hex digits (33)"),
        ("0x" + SECRET[:63], "has an odd number of hex digits (63)"),
        (
            " ".join(SECRET[i : i + 2] for i in range(0, 64, 2))[:-1],
            "odd number of hex digits (63)",
        ),
        (SECRET[:1] + " " + SECRET[1:], "whitespace between the two hex digits of a byte"),
        (SECRET[:31] + "g", "is not hexadecimal"),
        (SECRET[:31] + "\u2003" + SECRET[31:], "is not hexadecimal"),
    ],
)
def test_a_malformed_key_is_named_for_what_is_wrong(key: str, needle: str) -> None:
    with pytest.raises(DerivationError) as refused:
        parse_key(key, "--key")
    assert needle in str(refused.value)
    assert key.strip().removeprefix("0x") not in str(refused.value)


def test_the_cli_refuses_an_odd_key_in_one_line_with_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    out = tmp_path / "task"
    args = ["causal", "generate", "--family", "ate", "--task-id", "1", "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--key", SECRET[:31]])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "Error: --key has an odd number of hex digits (31); a key is whole bytes, "
        "two hex digits each (its value is not shown)"
    ]
    assert not out.exists()
    monkeypatch.setenv(KEY_ENV, SECRET[:33])
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "CAUSAL_GYM_KEY has an odd number of hex digits (33)" in result.output
