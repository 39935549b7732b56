"""One money formatter, and the submission check the dashboard's form shares with `submit`."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from ledger.money import format_money
from workbench.display import amount, money, short_number, signed_money
from workbench.play.session import PlayerSession


def test_money_reads_the_same_everywhere() -> None:
    assert money("14000") == "$14,000.00"
    assert money(Decimal("-300")) == "-$300.00" == format_money(-30000)
    assert signed_money("1200") == "+$1,200.00"
    assert signed_money("0") == "$0.00"
    assert amount("1234", "UNITS") == "1,234 units"
    assert amount("-2", "EVENTS") == "-2 events"
    assert amount("1", "EVENTS") == "1 event" and amount("1", "UNITS") == "1 unit"


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_money_round_trips_exactly(cents: int) -> None:
    text = money(Decimal(cents) / 100)
    assert text == format_money(cents)
    back = Decimal(text.replace("$", "").replace(",", ""))
    assert back == Decimal(cents) / 100


def test_short_number_keeps_four_significant_digits() -> None:
    assert short_number("0.1551046944444444444444444444") == "0.1551"
    assert short_number("12345.678") == "12,346"
    assert short_number("0") == "0" and short_number(0.5) == "0.5"


def _check(session: PlayerSession, **data: object) -> tuple[str, ...]:
    return session.check_assessment(data).errors


def test_check_agrees_with_submit(tmp_path: Path) -> None:
    """Whatever the check accepts, submit journals; whatever it refuses, submit refuses."""
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    cases = [
        {"question": "q_bank_loan", "value": "-500", "conclusion": "-300.005"},
        {"question": "q_bank_loan", "value": "-500", "conclusion": ""},
        {"question": "q_bank_loan", "value": "", "conclusion": "-300.00"},
        {"question": "q_bank_loan", "value": "abc", "conclusion": "-300.00"},
        {"question": "q_pick_a_lever", "value": "10"},
        {"question": "q_spring_campaign", "value": "1500"},
        {"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"},
    ]
    for data in cases:
        errors = _check(session, **data)
        result = session.submit(data)
        assert result.errors == errors, data
        assert result.accepted == (not errors)


def test_refusals_name_the_field_and_what_it_needs(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    [cent] = _check(session, question="q_bank_loan", value="1", conclusion="-300.005")
    assert cent == "conclusion: must be exact to the cent"
    [empty] = _check(session, question="q_bank_loan", value="1", conclusion="")
    assert empty.startswith("conclusion: empty; give the financing_net_assets of bank_loan")
    assert "not a" not in empty
    left_out = session.check_assessment({"question": "q_bank_loan", "value": "1"})
    assert not left_out.errors and "verdict is `missing`" in left_out.notes[0]
    [blank] = _check(session, question="q_spring_campaign", value="  ")
    assert blank.startswith("value: required")
    [word] = _check(session, question="q_spring_campaign", value="abc")
    assert word == "value: value 'abc' is not a decimal number"


def test_demo_prints_losses_rounded_and_effects_as_money(tmp_path: Path) -> None:
    import re

    from click.testing import CliRunner

    from workbench.cli import main

    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    losses = re.findall(r" loss ([\d.]+)", result.output)
    assert losses and all(len(loss.replace(".", "").lstrip("0")) <= 4 for loss in losses)
    assert re.search(r"effect [+-]?\$[\d,]+\.\d\d loss", result.output)
    assert re.search(r"mean score -?\d+\.\d{1,3};", result.output)


NUMBER_CHARACTERS = "0123456789+-.eE"


@given(
    st.text(
        alphabet=st.sampled_from([*NUMBER_CHARACTERS, " ", "\t", "٣", "𝟗", "١", "_", "x"]),
        min_size=1,
        max_size=12,
    )
)
def test_a_submitted_number_is_read_exactly_as_its_published_schema(text: str) -> None:
    """The published pattern's `\\d` is ASCII (JSON Schema patterns are ECMA regexes) and
    allows no space: a value the schema refuses is refused, never quietly normalised
    (`" 1 "` stored as 1, or an Arabic-Indic `٣` as 3)."""
    from workbench.runs.commands import bounded_decimal

    try:
        number = bounded_decimal(text)
    except ValueError:
        return
    assert all(c in NUMBER_CHARACTERS for c in text), text
    assert number == Decimal(text)


def test_spaces_and_other_scripts_digits_are_refused_with_one_line(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run")
    for value in (" 1 ", "٣", "𝟗", "1\n"):
        result = session.submit({"question": "q_bank_loan", "value": value})
        assert not result.accepted and "is not a decimal number" in result.errors[0], value
    assert session.submit({"question": "q_bank_loan", "value": "-250.5"}).accepted


def test_no_form_hint_carries_a_number_that_could_be_an_answer() -> None:
    """The contract-component hint said 'e.g. -300.00', exactly q_bank_loan's answer: the
    hints say what form an answer takes, never a number."""
    from campaigns import BUNDLED_CAMPAIGNS
    from workbench.runs.assessment import conclusion_needed
    from workbench.runs.bundle import load_bundle

    for bundled in BUNDLED_CAMPAIGNS:
        for question in load_bundle(bundled.name).questions.values():
            if question.conclusion is not None:
                hint = conclusion_needed(question.conclusion)
                assert not any(c.isdigit() for c in hint), (question.id, hint)


def test_a_conclusion_that_names_no_effect_is_refused_not_read_as_none(tmp_path: Path) -> None:
    """`,,` in the effects box named nothing: it was sent as an empty list, the answer
    'no effect shows'. Only the word `none` is that answer."""
    from workbench.runs.assessment import assessment_from_form

    session = PlayerSession.create(tmp_path / "run")
    question = session.bundle.questions["q_expansion_effects"]
    assert question.conclusion is not None and question.conclusion.kind == "supported_effects"
    for typed, accepted in ((",,", False), (" , ", False), ("none", True)):
        data = assessment_from_form(question.id, question.conclusion, (), ("100", typed, None))
        checked = session.check_assessment(data)
        assert (checked.assessment is not None) is accepted, (typed, checked.errors)


def test_a_hosted_export_never_replaces_a_file_in_the_working_directory(tmp_path: Path) -> None:
    """A hosted run's export goes to the working directory, the user's: a file, a link or
    a directory already named ledger.csv is left alone and the next free name is taken."""
    from workbench.play.public_view import write_export

    session = PlayerSession.create(tmp_path / "run")
    session.advance(3)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / "ledger.csv").write_text("my important notes")
    (cwd / "ledger-2.csv").symlink_to(tmp_path / "elsewhere")
    (cwd / "ledger-3.csv").mkdir()
    written = write_export(session.ledger(), "csv", cwd, replace=False)
    assert written == cwd / "ledger-4.csv"
    assert written.read_text() == session.ledger().export("csv")
    assert (cwd / "ledger.csv").read_text() == "my important notes"
    assert not (tmp_path / "elsewhere").exists()
    again = write_export(session.ledger(), "csv", cwd, replace=False)
    assert again == cwd / "ledger-5.csv"


@given(
    st.decimals(min_value=Decimal("-1e15"), max_value=Decimal("1e15"), places=6, allow_nan=False)
)
def test_a_submitted_number_shows_exactly_without_an_exponent(value: Decimal) -> None:
    """The submissions table showed what was stored (`1.5E+3`): now the exact number,
    with separators, never in exponent form, and reading back to the same value."""
    from workbench.display import plain_number

    shown = plain_number(str(value))
    assert "E" not in shown.upper()
    assert Decimal(shown.replace(",", "")) == value
