"""`workbench causal`: generate, score, audit and describe causal-gym tasks."""

from __future__ import annotations

import codecs
import sys
from pathlib import Path
from typing import Any

import click
import orjson

from graders.causal_gym.audit import SWEEP_LEVELS, AuditReport, render_report, run_audit
from graders.causal_gym.families import FAMILIES
from graders.causal_gym.keys import MAX_TASK_ID, NAMESPACES, DerivationError, resolve_key
from graders.causal_gym.manifest import EVAL_COUNTS, EVAL_NAMESPACE, MANIFEST_FILE
from graders.causal_gym.manifest_builder import build_manifest_text
from graders.causal_gym.scoring import score as score_task
from graders.causal_gym.staging import DATA_FILE, README_FILE
from graders.causal_gym.submission import InvalidSubmission, clip, parse_submission, schema
from graders.causal_gym.tasks import CausalGenerationError, HostTask, materialise
from graders.causal_gym.version import GENERATOR_VERSION, RETIRED_SPLITS
from workbench.cli.options import ANY_PATH, DIR, FILE, Whole, executor_options, executor_spec
from workbench.cli.task_folder import stage_folder
from workbench.errors import UserError
from workbench.inputs import read_bounded
from workbench.messages import printed
from workbench.outputs import check_new_file, write_new_file

KEY_HELP = (
    "Hex key (at least 32 hex digits); the CAUSAL_GYM_KEY environment variable overrides it; "
    "default: the public key. A blank key is an error."
)


class Named(click.Choice[str]):
    """A choice whose error quotes the bad value clipped, never in full."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        """Accept one of the choices or fail with a short message."""
        try:
            return str(super().convert(value, param, ctx))
        except click.BadParameter:
            choices = ", ".join(map(str, self.choices))
            self.fail(f"'{clip(str(value))}' is not one of {choices}", param, ctx)


FAMILY = Named(sorted(FAMILIES))
SPLIT = Named([*NAMESPACES, *RETIRED_SPLITS])
TASK_ID = Whole(0, MAX_TASK_ID, "2**64 - 1")


def _json(data: Any) -> str:
    """Indented JSON text for the terminal."""
    return orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SERIALIZE_NUMPY).decode()


def _key(option: str | None) -> bytes:
    """Resolve the key or explain what is wrong with it."""
    try:
        return resolve_key(option)
    except DerivationError as exc:
        raise UserError(str(exc)) from None


def _task(key_option: str | None, split: str, family: str, task_id: int) -> HostTask:
    """Materialise a task, turning bad references into user errors."""
    key = _key(key_option)
    try:
        return materialise(key, split, family, task_id)
    except (DerivationError, CausalGenerationError) as exc:
        raise UserError(str(exc)) from None


FORCE_HELP = "Replace an existing regular file at {flag} (never a link, device or directory)."
"""The help of each --force: what it replaces, and what it never does."""


task_options = [
    click.option("--family", "family", type=FAMILY, required=True, help="Task family."),
    click.option(
        "--split",
        type=SPLIT,
        default="train",
        show_default=True,
        help=f"Namespace: train (any id) or the frozen {EVAL_NAMESPACE} manifest.",
    ),
    click.option("--task-id", type=TASK_ID, required=True, help="Public task id."),
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
    type=DIR,
    required=True,
    help="Folder to stage data.csv and README.md into (new, or holding only those two).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace data.csv and README.md already staged in --out (regular files only: "
    "never a link, device or directory).",
)
def generate(
    family: str, split: str, task_id: int, key_option: str | None, out: Path, force: bool
) -> None:
    """Stage the agent-visible folder (data.csv and README.md only)."""
    task = _task(key_option, split, family, task_id)
    stage_folder(out, task.staged.files(), force)
    click.echo(
        f"staged {family} {split} task {task_id}: {printed(out / DATA_FILE)} "
        f"({len(task.staged.frame)} rows), {printed(out / README_FILE)}"
    )


@causal.command()
@with_task_options
@click.argument("submission", type=ANY_PATH)
def score(family: str, split: str, task_id: int, key_option: str | None, submission: Path) -> None:
    """Re-derive the task from the key and print the reward and its breakdown as JSON.

    The submission must be strict JSON (no repeated key, no NaN) of at most 1 MiB, which may
    start with a UTF-8 byte order mark as editors write one; an invalid one is refused with
    one line per problem and exit code 2.
    """
    raw = read_bounded(submission, "submission").removeprefix(codecs.BOM_UTF8)
    try:
        parsed = parse_submission(family, raw)
    except InvalidSubmission as exc:
        lines = [
            f"invalid submission {submission}: {e['loc'] or 'body'}: {e['msg']}" for e in exc.errors
        ]
        raise UserError(lines) from None
    task = _task(key_option, split, family, task_id)
    result = score_task(task, parsed)
    header = {"family": family, "split": split, "task_id": task_id}
    click.echo(_json({**header, "generator_version": GENERATOR_VERSION, **result.to_dict()}))


@causal.command(name="schema")
@click.argument("family", type=FAMILY)
def schema_cmd(family: str) -> None:
    """Print the JSON Schema of a family's submission."""
    click.echo(_json(schema(family)))


def _table(report: AuditReport) -> str:
    """The audit as the seed's table, the width sweep and the structural-null check."""
    lines = [
        f"causal-gym generator version {report.generator_version}, {report.namespace} ids "
        f"0..{report.n_per_family - 1}, {'public' if report.public_key else 'private'} key",
        "",
        f"{'family':<12} {'tasks':>5} {'honest reward':>14} {'interval coverage':>18}  "
        f"{'regenerated':>11}",
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
            f" {f.sweep[label].reward:>13.6f} ({f.sweep[label].coverage:.3f})"
            for f in report.families
        )
        lines.append(f"{label:<8}{cells}")
    lines.append(f"{'peak':<8}" + "".join(f" {f.sweep_peak:>22.2f}" for f in report.families))
    for fam in report.families:
        if fam.null_check is not None:
            tiny, ref = fam.null_check.tiny_width_reward, fam.null_check.reference_width_reward
            verdict = "holds" if tiny < ref else "FAILS"
            lines += [
                "",
                f"structural-null check ({fam.family}, {fam.null_check.n} nulls): "
                f"1%-scale width {tiny:.6f} vs reference width {ref:.6f}: {verdict}",
            ]
        if fam.all_pre is not None:
            lines += [
                "",
                f"adjusting for every pre-treatment column ({fam.family}): valid on "
                f"{fam.all_pre.valid_share:.3f} of tasks, reward {fam.all_pre.reward:.6f} "
                f"vs honest {fam.honest_reward:.6f}",
            ]
    return "\n".join(lines)


@causal.command()
@click.option("--family", "families", type=FAMILY, multiple=True, help="Family (repeatable).")
@click.option(
    "-n",
    "n",
    type=Whole(1, 100_000),
    default=300,
    show_default=True,
    help="Tasks per family (train ids 0..n-1).",
)
@click.option(
    "--json",
    "json_path",
    type=FILE,
    default=None,
    help="Also write the full report (aggregates and every task) as JSON to a new file "
    "(never inside a run directory).",
)
@click.option("--force", is_flag=True, help=FORCE_HELP.format(flag="--json"))
@click.option("--key", "key_option", default=None, help=KEY_HELP)
@executor_options
def audit(
    families: tuple[str, ...],
    n: int,
    json_path: Path | None,
    force: bool,
    key_option: str | None,
    executor: str,
    scheduler: str | None,
    workers: int | None,
) -> None:
    """Run the honest reference on n tasks per family; print rewards, coverage and checks.

    Tasks run on the executor (--executor, --workers, --scheduler) and are taken in task
    order, so the report is the same as a serial one. The key travels to the workers.
    --json is checked before the audit starts.
    """
    from workbench.evaluation.executors import mapper, open_executor

    spec = executor_spec(executor, scheduler, workers)
    chosen = tuple(dict.fromkeys(families or tuple(FAMILIES)))
    key = _key(key_option)
    if json_path is not None:
        check_new_file(json_path, force=force, what="audit report")
    with (
        open_executor(spec) as running,
        click.progressbar(length=n * len(chosen), label="auditing", file=sys.stderr) as bar,
    ):
        tasks = mapper(running, "causal audit", refusals=(CausalGenerationError,))
        report = run_audit(key, chosen, n, tick=lambda: bar.update(1), mapper=tasks)
    click.echo(_table(report))
    if json_path is not None:
        write_new_file(json_path, render_report(report).encode(), force=force, what="audit report")
        click.echo(f"report written to {printed(json_path)}")


@causal.command()
@click.option(
    "--out",
    type=FILE,
    required=True,
    help=f"Where to write the regenerated manifest (committed as {MANIFEST_FILE}); "
    "a new file unless --force.",
)
@click.option("--force", is_flag=True, help=FORCE_HELP.format(flag="--out"))
def manifest(out: Path, force: bool) -> None:
    """Regenerate the frozen eval split's manifest from the public key."""
    check_new_file(out, force=force, what="manifest")
    total = sum(EVAL_COUNTS.values())
    with click.progressbar(
        length=total, label=f"materialising {EVAL_NAMESPACE}", file=sys.stderr
    ) as bar:
        text = build_manifest_text(tick=lambda: bar.update(1))
    write_new_file(out, text.encode(), force=force, what="manifest")
    click.echo(f"{EVAL_NAMESPACE} manifest ({total} tasks) written to {printed(out)}")
