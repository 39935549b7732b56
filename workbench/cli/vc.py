"""`workbench vc`: generate VC deal-math items and grade completions with the study's grader."""

from __future__ import annotations

from pathlib import Path

import click
import orjson

from graders.vc_deal import (
    DEFAULT_NUM_EXAMPLES,
    DEFAULT_SEED,
    MAX_NUM_EXAMPLES,
    GenerationError,
    GradeInputError,
    Summary,
    TemplateError,
    VCPanel,
    dataset_sha256,
    grade_parsed,
    parse_inputs,
    to_jsonl,
)
from graders.vc_deal.batch import json_number
from graders.vc_deal.gold import shown
from graders.vc_deal.verdicts import gold_window
from workbench.cli.options import FILE, Whole, executor_options, executor_spec
from workbench.errors import UserError
from workbench.inputs import read_bounded
from workbench.messages import printed, single_line
from workbench.outputs import check_new_file, write_new_file

SEED = Whole(-(2**63), 2**63 - 1, "2**63 - 1", low_text="-2**63")
"""A generator seed: a signed 64-bit whole number."""


@click.group(name="vc")
def vc() -> None:
    """VC deal math: generate items and grade answers."""


@vc.command()
@click.option(
    "--seed",
    type=SEED,
    default=DEFAULT_SEED,
    show_default=True,
    help="Generator seed (-2**63 to 2**63 - 1).",
)
@click.option(
    "-n",
    "--num-examples",
    type=Whole(1, MAX_NUM_EXAMPLES),
    default=DEFAULT_NUM_EXAMPLES,
    show_default=True,
    help=f"Items to generate (1 to {MAX_NUM_EXAMPLES}): half easy (the extra one when odd), "
    "half hard.",
)
@click.option(
    "--out",
    type=FILE,
    help="Write the JSONL to FILE (a new file; never inside a run directory) instead of "
    "standard output.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace an existing regular file at --out (never a link, device or directory).",
)
@click.option(
    "--templates",
    type=FILE,
    help="A TOML template file to use instead of the bundled one.",
)
def generate(
    seed: int, num_examples: int, out: Path | None, force: bool, templates: Path | None
) -> None:
    """Generate a deterministic dataset as canonical JSONL (question, answer, info).

    --out is checked before any item is made, and written whole or not at all.
    """
    if out is not None:
        check_new_file(out, force=force)
    try:
        items = VCPanel(templates).generate(num_examples, seed)
    except (TemplateError, GenerationError) as exc:
        raise UserError(str(exc)) from exc
    data = to_jsonl(items)
    if out is None:
        click.echo(data, nl=False)
    else:
        write_new_file(out, data, force=force)
    where = f" to {printed(out)}" if out is not None else ""
    click.echo(f"{len(items)} items (seed {seed}){where}, sha256 {dataset_sha256(items)}", err=True)


OUTPUT_CHUNK = 65_536
"""Result lines written at a time: the output of a big input is never held whole twice."""

GROUP_WIDTH = 24
"""Characters of a difficulty name the summary shows; a longer one is cut with an ellipsis."""


def _group_name(name: str) -> str:
    """A difficulty name from the input as one short, printable table cell: control
    characters escaped (a newline or an escape sequence would break or restyle the table)."""
    shown = single_line(name)
    return shown if len(shown) <= GROUP_WIDTH else shown[: GROUP_WIDTH - 1] + "…"


def _summary_lines(summary: Summary) -> list[str]:
    """The stderr table: accuracy overall and per difficulty, with the loose - strict gap."""
    mode = "loose" if summary.loose else "strict"
    lines = [
        f"graded {summary.overall.count} lines, reward = {mode}",
        f"{'group':<10}{'n':>7}{'strict':>9}{'loose':>9}{'gap':>9}{'format':>9}",
    ]
    for name, accuracy in (("all", summary.overall), *summary.by_difficulty.items()):
        lines.append(
            f"{_group_name(name):<10}{accuracy.count:>7}{accuracy.strict:>9.4f}{accuracy.loose:>9.4f}"
            f"{accuracy.gap:>9.4f}{accuracy.format_valid:>9.4f}"
        )
    return lines


def _grade_one(text: str, answer: str, loose: bool) -> None:
    """Grade a single text: the JSON verdict line on stdout, where it came from on stderr.

    The gold is shown as graded, exactly at cents (not through a float, which has no cents
    past 15 digits: 99999999999999999999999999.80 showed as 100000000000000004764729344.00).
    """
    try:
        gold = gold_window(answer).gold
    except ValueError as exc:
        raise UserError(f"--answer is {exc}") from exc
    found = VCPanel().grade_text(text, answer, loose)
    row = {
        "extracted": json_number(found.extracted),
        "strict_correct": found.strict_correct,
        "loose_correct": found.loose_correct,
        "format_valid_number": found.format_valid_number,
        "reward": found.reward,
    }
    click.echo(orjson.dumps(row))
    infinite = row["extracted"] is None and found.extracted is not None
    note = " (infinite as a float, so never correct)" if infinite else ""
    if found.source == "cue":
        click.echo(
            f"number {shown(found.token)}{note} at {found.number_span} after cue {found.cue!r} "
            f"at {found.cue_span}; gold {gold}",
            err=True,
        )
    elif found.source == "last_number":
        click.echo(
            f"no cue matched; last number {shown(found.token)}{note} at {found.number_span}; "
            f"gold {gold}",
            err=True,
        )
    else:
        click.echo(f"no number found; gold {gold}", err=True)


@vc.command()
@click.argument("source")
@click.option(
    "--answer",
    metavar="GOLD",
    help="Grade SOURCE as one completion text against this gold answer, instead of a file.",
)
@click.option("--loose", is_flag=True, help="Reward with the loose grader (within 0.50 points).")
@executor_options
def grade(
    source: str,
    answer: str | None,
    loose: bool,
    executor: str,
    scheduler: str | None,
    workers: int | None,
) -> None:
    """Grade a JSONL file of {completion, answer, info?} lines, or one text with --answer.

    Writes one JSON line per input, in order, then a summary on standard error. An input
    with no lines, a malformed line or a file over the grader-input limit exits 2. A big
    file can be graded in chunks on the executor (--executor, --workers, --scheduler):
    every line is validated before the executor starts (a bad line is named at once, not
    after a cluster starts or a scheduler times out), and the output is the same as a
    serial grading.
    """
    from workbench.evaluation.executors import mapper, open_executor

    spec = executor_spec(executor, scheduler, workers)
    if answer is not None:
        _grade_one(source, answer, loose)
        return
    data = read_bounded(source, "grader input")
    try:
        inputs = parse_inputs(data, source)
    except GradeInputError as exc:
        raise UserError(str(exc)) from exc
    if spec.kind == "local" and (spec.workers or 1) == 1:
        report = grade_parsed(inputs, loose)
    else:
        with open_executor(spec) as running:
            report = grade_parsed(inputs, loose, mapper=mapper(running, "vc grade"))
    results = report.results
    for start in range(0, len(results), OUTPUT_CHUNK):
        rows = results[start : start + OUTPUT_CHUNK]
        click.echo(b"".join(orjson.dumps(result.to_row()) + b"\n" for result in rows), nl=False)
    for line in _summary_lines(report.summary):
        click.echo(line, err=True)
