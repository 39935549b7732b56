"""The generator: golden hashes and rows, interleaving, prefixes, bands, formats and the guard."""

import re
from decimal import Decimal
from pathlib import Path

import pytest

from graders.vc_deal import (
    MAX_NUM_EXAMPLES,
    GenerationError,
    TemplateError,
    dataset_sha256,
    generate,
    item_at,
    leak_reason,
    load_templates,
    to_jsonl,
)
from graders.vc_deal.money import money_formats, snap

GOLDEN_SHA256 = {
    0: "d86af245dd3ddbaa9a7dcecdec506b8a4ad00bb936fc626877474beda5b6ac09",
    7: "3bd2c8a9b0796d521a066bbbe780812e93c8df4005b61afedf6dfd4c3bb2c7bb",
    42: "6d8c92e93d2770ddda7e259c31e380936d54802abf023c081ed2ddd19b835ee2",
}

INSTRUCTION = (
    "What percentage of the company does the new investor own right after this round? "
    'Work it out briefly, then finish with "The answer is X", where X is the percentage '
    "rounded to two decimal places."
)

GOLDEN_ROWS_SEED_42 = [
    {
        "question": "Pinecrest AI raised $89M from Fernway VC at a $911M pre-money valuation."
        f"\n\n{INSTRUCTION}",
        "answer": 8.9,
        "info": {
            "difficulty": "easy",
            "raise": 89_000_000,
            "pre_money": 911_000_000,
            "post_money": 1_000_000_000,
            "ownership": 8.9,
        },
    },
    {
        "question": "Wrenfield (a biotech outfit, 49 staff as of last month) just wrapped a "
        "Series B. Term sheet, roughly: 94,100,000 dollars in new cash from Meridian Seed; "
        "pre-money $150M. Prior-year ARR came in near $27.7M, for what it's worth."
        f"\n\n{INSTRUCTION}",
        "answer": 38.55,
        "info": {
            "difficulty": "hard",
            "raise": 94_100_000,
            "pre_money": 150_000_000,
            "post_money": 244_100_000,
            "ownership": 38.54977468250717,
        },
    },
]

DATASET_42 = generate(256, 42)


@pytest.mark.parametrize(("seed", "digest"), sorted(GOLDEN_SHA256.items()))
def test_golden_dataset_hashes(seed: int, digest: str) -> None:
    items = DATASET_42 if seed == 42 else generate(256, seed)
    assert dataset_sha256(items) == digest


def test_golden_rows() -> None:
    assert [item.to_row() for item in DATASET_42[:2]] == GOLDEN_ROWS_SEED_42


def test_defaults_are_256_items_and_seed_42() -> None:
    assert generate() == DATASET_42


def test_canonical_jsonl_is_sorted_and_newline_terminated() -> None:
    data = to_jsonl(DATASET_42[:2])
    assert data.endswith(b"\n") and data.count(b"\n") == 2
    assert data.startswith(b'{"answer":8.9,"info":{"difficulty":"easy","ownership":8.9,')


@pytest.mark.parametrize("size", [1, 2, 3, 10, 255])
def test_any_prefix_of_a_larger_set_is_the_smaller_set(size: int) -> None:
    assert generate(size, 42) == DATASET_42[:size]


def test_half_easy_half_hard_interleaved_extra_easy_when_odd() -> None:
    items = generate(7, 3)
    assert [item.difficulty for item in items] == ["easy", "hard"] * 3 + ["easy"]
    assert [item.difficulty for item in DATASET_42].count("easy") == 128


def test_seeds_differ_and_repeat() -> None:
    assert generate(6, 1) != generate(6, 2)
    assert generate(6, 1) == generate(6, 1)


@pytest.mark.parametrize("size", [0, -3])
def test_fewer_than_one_item_is_an_error(size: int) -> None:
    with pytest.raises(GenerationError):
        generate(size, 42)


def test_item_at_indexes_each_difficulty() -> None:
    assert item_at("easy", 42, 0) == DATASET_42[0]
    assert item_at("hard", 42, 0) == DATASET_42[1]
    assert item_at("hard", 42, 5) == DATASET_42[11]
    with pytest.raises(GenerationError):
        item_at("medium", 42, 0)  # type: ignore[arg-type]
    with pytest.raises(GenerationError):
        item_at("easy", 42, -1)


@pytest.mark.parametrize("index", [MAX_NUM_EXAMPLES // 2, 10**20, 10**400])
def test_item_at_refuses_an_index_beyond_the_largest_dataset(index: int) -> None:
    """An index past sys.maxsize was islice's traceback; a large one ran out of memory."""
    with pytest.raises(
        GenerationError, match=f"index must be from 0 to {MAX_NUM_EXAMPLES // 2 - 1}"
    ) as info:
        item_at("hard", 42, index)
    assert len(str(info.value)) < 200


def test_no_duplicate_questions_and_question_is_scenario_plus_instruction() -> None:
    assert len({item.question for item in DATASET_42}) == len(DATASET_42)
    for item in DATASET_42:
        assert item.question == f"{item.scenario}\n\n{INSTRUCTION}"


def test_info_is_consistent_with_the_answer() -> None:
    for item in DATASET_42:
        info = item.to_row()["info"]
        assert isinstance(info, dict)
        assert info["post_money"] == info["raise"] + info["pre_money"]
        exact = Decimal(info["raise"]) * 100 / Decimal(info["post_money"])
        assert abs(info["ownership"] - float(exact)) < 1e-9
        assert abs(item.answer - info["ownership"]) <= 0.005 + 1e-9


def test_easy_items_are_one_short_sentence_in_clean_millions() -> None:
    for item in DATASET_42[::2]:
        assert item.scenario.count(". ") == 0 and item.scenario.endswith(".")
        figures = re.findall(r"\$[\d.,]+\w*", item.scenario)
        assert figures == [f for f in figures if re.fullmatch(r"\$\d+M", f)]
        assert {f"${item.raise_amount // 10**6}M", f"${item.pre_money // 10**6}M"} <= set(figures)


MONEY = re.compile(
    r"(?:USD |\$)?(\d[\d,]*(?:\.\d+)?)(?:( million| billion|M|B|K)| dollars)?", re.IGNORECASE
)
UNITS = {" million": 10**6, "m": 10**6, " billion": 10**9, "b": 10**9, "k": 10**3, None: 1}


def _amounts(scenario: str) -> set[int]:
    """Every figure in a scenario read back as dollars (years and counts read as themselves)."""
    found = set()
    for match in MONEY.finditer(scenario):
        unit = match[2].lower() if match[2] else None
        found.add(int(Decimal(match[1].replace(",", "")) * UNITS[unit]))
    return found


def test_hard_items_state_their_figures_in_mixed_formats() -> None:
    shapes = set()
    for item in DATASET_42[1::2]:
        assert {item.raise_amount, item.pre_money} <= _amounts(item.scenario)
        shapes |= {
            re.sub(r"[\d.,]+", "9", form)
            for form in re.findall(
                r"(?:USD )?\$?[\d][\d.,]*(?: million| billion| dollars|[MBK])?", item.scenario
            )
        }
    assert {"$9M", "$9 million", "9 dollars", "$9K"} <= shapes


def test_hard_items_carry_one_or_two_distractors() -> None:
    for item in DATASET_42[1::2]:
        extra = _amounts(item.scenario) - {item.raise_amount, item.pre_money}
        assert 1 <= len(extra) <= 2, item.scenario


@pytest.mark.parametrize(
    ("amount", "formats"),
    [
        (220_000, ("$220K", "$220,000", "220,000 dollars")),
        (
            2_500_000,
            ("$2.5M", "$2.5 million", "USD 2.5 million", "$2,500,000", "2,500,000 dollars"),
        ),
        (1_200_000_000, ("$1.2B", "$1.2 billion")),
        (371_400_000, ("$371.4M", "$371.4 million", "USD 371.4 million")),
    ],
)
def test_money_formats(amount: int, formats: tuple[str, ...]) -> None:
    assert money_formats(amount) == formats


@pytest.mark.parametrize(
    ("amount", "snapped"),
    [
        (437_499, 437_000),
        (999_600, 1_000_000),
        (2_437_000, 2_440_000),
        (1_234_567_890, 1_235_000_000),
    ],
)
def test_snap_rounds_to_the_written_grid(amount: int, snapped: int) -> None:
    assert snap(amount) == snapped


@pytest.mark.parametrize(
    ("scenario", "reason"),
    [
        ("Raised $5M, which is 12.5% of the company.", "mentions '%'"),
        ("They get twelve percent.", "mentions 'percent'"),
        ("Kestrel now owns a slice.", "mentions 'owns'"),
        ("A new Stake for Kestrel.", "mentions 'Stake'"),
        ("Equity round at $40M.", "mentions 'Equity'"),
        ("Kestrel holds shares.", "mentions 'holds'"),
        ("Ownership changes hands.", "mentions 'Ownership'"),
        ("They raised 12.5 units.", "states the answer as '12.5'"),
        ("Founded in 12,50 BC.", "states the answer as '12,50'"),
        ("Valued at 12.499 apples.", "states the answer as '12.499'"),
    ],
)
def test_the_guard_names_each_leak(scenario: str, reason: str) -> None:
    assert leak_reason(scenario, 12.5) == reason


def test_the_guard_passes_clean_scenarios() -> None:
    assert (
        leak_reason("Raised $12M at a $125M pre-money valuation; stakeholders cheer.", 12.5) is None
    )


def test_bundled_templates_have_at_least_six_of_each() -> None:
    bank = load_templates()
    assert len(bank.easy) >= 6 and len(bank.hard) >= 6


HEAD = 'instruction = "Say it."\n'
NAMES = (
    '[names]\ncompanies = ["Acme"]\ninvestors = ["Fund"]\nrounds = ["Series A"]\n'
    'sectors = ["fintech"]\n'
)
GOOD_EASY = 'easy = ["{company} raised {raise} at {pre} pre-money."]\n'
GOOD_HARD = 'hard = ["{company} ({year}) raised {raise} at {pre} pre-money."]\n'


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "templates.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_swapped_template_file_is_used(tmp_path: Path) -> None:
    bank = load_templates(_write(tmp_path, HEAD + GOOD_EASY + GOOD_HARD + NAMES))
    items = generate(2, 5, bank)
    assert items[0].question.startswith("Acme raised $")
    assert items[1].question.endswith("\n\nSay it.")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (HEAD + GOOD_HARD + NAMES, "easy"),
        (HEAD + 'easy = ["{company} raised {raise}."]\n' + GOOD_HARD + NAMES, "{raise} and {pre}"),
        (HEAD + 'easy = ["{raise} {pre} in {year}"]\n' + GOOD_HARD + NAMES, "no distractors"),
        (HEAD + GOOD_EASY + 'hard = ["{raise} {pre}"]\n' + NAMES, "one or two distractors"),
        (HEAD + 'easy = ["{raise} {pre} {bogus}"]\n' + GOOD_HARD + NAMES, "unknown placeholder"),
        (HEAD + 'easy = ["{raise} {pre} 10%"]\n' + GOOD_HARD + NAMES, "giveaway"),
        (HEAD + 'easy = ["{raise} {pre} for equity"]\n' + GOOD_HARD + NAMES, "giveaway"),
        (HEAD + GOOD_EASY + GOOD_HARD + NAMES.replace('"Fund"', '"Stake Fund"'), "not allowed"),
        (HEAD + GOOD_EASY + GOOD_HARD, "[names]"),
        ("easy = [", "not valid TOML"),
    ],
)
def test_bad_template_files_are_refused(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(TemplateError, match=re.escape(message)):
        load_templates(_write(tmp_path, text))


def test_a_tiny_bank_runs_out_instead_of_looping(tmp_path: Path) -> None:
    bank = load_templates(_write(tmp_path, HEAD + GOOD_EASY + GOOD_HARD + NAMES))
    with pytest.raises(GenerationError, match="too small"):
        generate(2000, 1, bank)
