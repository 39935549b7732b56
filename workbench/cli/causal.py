"""`workbench causal`: generate, score, audit and describe causal-gym tasks."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import click
import orjson

from graders.causal_gym.audit import SWEEP_LEVELS, AuditReport, run_audit
from graders.causal_gym.families import FAMILIES
from graders.causal_gym.keys import MAX_TASK_ID, NAMESPACES, DerivationError, resolve_key
from graders.causal_gym.manifest import EVAL_COUNTS, MANIFEST_FILE
from graders.causal_gym.manifest_builder import build_manifest_text
from graders.causal_gym.scoring import score as score_task
from graders.causal_gym.staging import DATA_FILE, README_FILE
from graders.causal_gym.submission import InvalidSubmission, parse_submission, schema
from graders.causal_gym.tasks import GenerationError, HostTask, materialise
from workbench.cli.options import executor_options, executor_spec
from workbench.errors import UserError

FAMILY = click.Choice(sorted(FAMILIES))
KEY_HELP = "Hex key; the CAUSAL_GYM_KEY environment variable overrides it; default: public key."


def _json(data: Any) -> str:
    """Indented JSON text for the terminal."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode()


def _key(option: str | None) -> bytes:
    """Resolve the key or explain what is wrong with it."""
    try:
        return resolve_key(option)
    except DerivationError as exc:
        raise UserError(str(exc)) from exc


def _task(key_option: str | None, split: str, family: str, task_id: int) -> HostTask:
    """Materialise a task, turning bad references into user errors."""
    try:
        return materialise(_key(key_option), split, family, task_id)
    except DerivationError as exc:
        raise UserError(str(exc)) from exc
    except GenerationError as exc:
        raise UserError(str(exc)) from exc


def _write_folder(out: Path, files: dict[str, str]) -> None:
    """Write exactly the staged files; refuse a folder holding anything else; never half-write."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out} exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    strangers = sorted(p.name for p in out.iterdir() if p.name not in files)
    if strangers:
        raise UserError(f"--out {out} already holds other files: {', '.join(strangers)}")
    for name, text in files.items():
        handle, temp = tempfile.mkstemp(dir=out, prefix=f".{name}.")
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.replace(temp, out / name)


task_options = [
    click.option("--family", "family", type=FAMILY, required=True, help="Task family."),
    click.option(
        "--split",
        type=click.Choice(NAMESPACES),
        default="train",
        show_default=True,
        help="Namespace: train (any id) or the frozen eval-v1 manifest.",
    ),
    click.option(
        "--task-id", type=click.IntRange(0, MAX_TASK_ID), required=True, help="Public task id."
    ),
    click.option("--key", "key_option", default=None, help=KEY_HELP),
]


def with_task_options(func: Any) -> Any:
    """Attach --family, --split, --task-id and --key."""
    for option in reversed(task_options):
        func = option(func)
    return func


@click.group(name="causal")
def causal() -> None:
    """causal-gym: keyed causal-inference tasks with certified identification."""


@causal.command()
@with_task_options
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    required=True,
    help="Folder to stage data.csv and README.md into.",
)
def generate(family: str, split: str, task_id: int, key_option: str | None, out: Path) -> None:
    """Stage the agent-visible folder (data.csv and README.md only)."""
    task = _task(key_option, split, family, task_id)
    _write_folder(out, task.staged.files())
    click.echo(
        f"staged {family} {split} task {task_id}: {out / DATA_FILE} "
        f"({len(task.staged.frame)} rows), {out / README_FILE}"
    )


@causal.command()
@with_task_options
@click.argument("submission", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def score(family: str, split: str, task_id: int, key_option: str | None, submission: Path) -> None:
    """Re-derive the task from the key and print the reward and its breakdown as JSON."""
    try:
        parsed = parse_submission(family, submission.read_bytes())
    except InvalidSubmission as exc:
        raise UserError(f"invalid submission {submission}:\n{_json(exc.errors)}") from exc
    task = _task(key_option, split, family, task_id)
    result = score_task(task, parsed)
    click.echo(_json({"family": family, "split": split, "task_id": task_id, **result.to_dict()}))


@causal.command(name="schema")
@click.argument("family", type=FAMILY)
def schema_cmd(family: str) -> None:
    """Print the JSON Schema of a family's submission."""
    click.echo(_json(schema(family)))


def _table(report: AuditReport) -> str:
    """The audit as the seed's table, the width sweep and the structural-null check."""
    lines = [
        f"{'family':<12} {'tasks':>5} {'honest reward':>14} {'interval coverage':>18}  "
        f"{'regenerated':>11}"
    ]
    for fam in report.families:
        lines.append(
            f"{fam.family:<12} {fam.n:>5} {fam.honest_reward:>14.6f} {fam.coverage:>18.6f}  "
            f"{fam.regenerated:>11}"
        )
    total = sum(f.n for f in report.families)
    lines.append(f"{'all':<12} {total:>5} {report.honest_reward:>14.6f} {report.coverage:>18.6f}")
    lines += ["", "width sweep: mean estimand reward (empirical coverage) by nominal coverage"]
    lines.append(f"{'nominal':<8}" + "".join(f" {f.family:>22}" for f in report.families))
    for level in SWEEP_LEVELS:
        label = f"{level:.2f}"
        cells = "".join(
            f" {f.sweep[label]['reward']:>13.6f} ({f.sweep[label]['coverage']:.3f})"
            for f in report.families
        )
        lines.append(f"{label:<8}{cells}")
    lines.append(f"{'peak':<8}" + "".join(f" {f.sweep_peak:>22.2f}" for f in report.families))
    for fam in report.families:
        if fam.null_check is not None:
            tiny, ref = (
                fam.null_check["tiny_width_reward"],
                fam.null_check["reference_width_reward"],
            )
            verdict = "holds" if tiny < ref else "FAILS"
            lines += [
                "",
                f"structural-null check ({fam.family}, {int(fam.null_check['n'])} nulls): "
                f"1%-scale width {tiny:.6f} vs reference width {ref:.6f}: {verdict}",
            ]
    return "\n".join(lines)


@causal.command()
@click.option("--family", "families", type=FAMILY, multiple=True, help="Family (repeatable).")
@click.option(
    "-n",
    "n",
    type=click.IntRange(1, 100_000),
    default=300,
    show_default=True,
    help="Tasks per family (train ids 0..n-1).",
)
@click.option(
    "--json",
    "json_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the full report as JSON.",
)
@click.option("--key", "key_option", default=None, help=KEY_HELP)
@executor_options
def audit(
    families: tuple[str, ...],
    n: int,
    json_path: Path | None,
    key_option: str | None,
    executor: str,
    scheduler: str | None,
    workers: int | None,
) -> None:
    """Run the honest reference on n tasks per family; print rewards, coverage and checks.

    Tasks run on the executor (--executor, --workers, --scheduler) and are taken in task
    order, so the report is the same as a serial one. The key travels to the workers.
    """
    from workbench.evaluation.executors import mapper, open_executor

    spec = executor_spec(executor, scheduler, workers)
    chosen = tuple(dict.fromkeys(families or tuple(FAMILIES)))
    key = _key(key_option)
    with (
        open_executor(spec) as running,
        click.progressbar(length=n * len(chosen), label="auditing", file=sys.stderr) as bar,
    ):
        report = run_audit(
            key, chosen, n, tick=lambda: bar.update(1), mapper=mapper(running, "causal audit")
        )
    click.echo(_table(report))
    if json_path is not None:
        json_path.write_text(_json(report.to_dict()) + "\n", encoding="utf-8")
        click.echo(f"report written to {json_path}")


@causal.command()
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help=f"Where to write the regenerated manifest (committed as {MANIFEST_FILE}).",
)
def manifest(out: Path) -> None:
    """Regenerate the frozen eval-v1 manifest from the public key."""
    with click.progressbar(
        length=sum(EVAL_COUNTS.values()), label="materialising eval-v1", file=sys.stderr
    ) as bar:
        text = build_manifest_text(tick=lambda: bar.update(1))
    out.write_text(text, encoding="utf-8")
    click.echo(f"eval-v1 manifest ({sum(EVAL_COUNTS.values())} tasks) written to {out}")
