"""Checking an evaluation's output (`workbench verify-report`): report, checksums, seals.

An output directory is consistent when report.json is canonical and names the SHA-256 of
SHA256SUMS; SHA256SUMS lists exactly the files under seals/ with their true hashes; every
branch record of the report points at its own seal in its question's file (hash, seal
digest, episode, branch, campaign) and every seal has its record; each question's
contract, contract digest and episode ids are the ones derived from its id and the run's
journal head; its effects, losses, scores and summary follow from its own numbers; and,
when the results directory is given, evaluating that run again gives the same report.

A private run's report and its branch seals are signed by the evaluator with keys derived
from the control file; given that control file, the check authenticates them, so an edit
re-hashed throughout (report, SHA256SUMS, seals) is still found without the run itself.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import re
import tempfile
import zlib
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from graders import counterfactual as cf
from ledger.bounded_read import read_at_most
from ledger.canonical import dumps
from ledger.seal import Seal, SealFormatError
from workbench.errors import AccessError, UserError, WorkbenchError
from workbench.evaluation.branches import episode_id
from workbench.evaluation.evaluator import REPORT_FILE, SEALS_DIR, SUMS_FILE, run_evaluation
from workbench.evaluation.report import (
    QUESTION_STATUSES,
    CounterfactualReport,
    QuestionEntry,
    contract_digest,
)
from workbench.inputs import LIMITS, MIB, read_bounded, require_directory
from workbench.messages import clip, problems
from workbench.runs.registration import ControlFile

_SUM_LINE = re.compile(rb"([0-9a-f]{64})  (seals/[A-Za-z0-9_.\-]+)")
_MAX_DIFFERENCES = 20


@dataclass
class ReportCheck:
    """What `check_report` found: every problem, one line each (none when consistent)."""

    out: Path
    problems: list[str] = field(default_factory=list)
    questions: int = 0
    seals: int = 0
    compared_with: Path | None = None
    authenticated: bool = False
    """Consistent, and the report and every seal carry the signatures the control file's
    keys make."""
    private: bool = False

    @property
    def ok(self) -> bool:
        """True when report, checksums, seals (and the results, if given) agree."""
        return not self.problems


def check_report(
    out: str | Path,
    results: str | Path | None = None,
    *,
    control: ControlFile | None = None,
    agent: str | None = None,
    campaign: str | Path | None = None,
) -> ReportCheck:
    """Check an evaluation output directory, and against `results` when given (whose
    campaign is at `campaign` when it moved, as `validate --campaign` was told)."""
    out = Path(out)
    require_directory(out)
    report_path = out / REPORT_FILE
    if not report_path.exists():
        raise UserError(f"{out} is not an evaluation output (no {REPORT_FILE})")
    check = ReportCheck(out)
    raw = _read(report_path, "report", check)
    if raw is None:
        return check
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError:
        check.problems.append(f"{report_path}: not valid JSON (changed or corrupted file)")
        return check
    if not isinstance(document, dict):
        check.problems.append(f"{report_path}: not a report (a JSON object is expected)")
        return check
    if dumps(document) + b"\n" != raw:
        check.problems.append(f"{report_path}: not in canonical encoding (changed file)")
    try:
        report = CounterfactualReport.model_validate(document)
    except ValidationError as exc:
        check.problems.extend(f"{report_path}: {line}" for line in problems(exc))
        return check
    check.questions = len(report.questions)
    check.private = report.registration.visibility == "private"
    seal_key = _keys_for(report, control, check)
    if agent is not None and agent != report.registration.agent_id:
        if seal_key is None or check.ok:
            raise UserError(
                f"{out} reports the run of {clip(report.registration.agent_id)}, not {clip(agent)}",
                subject="agent",
            )
        # Not signed as written: the agent it names may be the altered part.
        check.problems.append(
            f"{report_path}: names agent {clip(report.registration.agent_id)}, not "
            f"{clip(agent)}, and its signature does not hold"
        )
    listed = _check_sums(out, report, check)
    _check_branches(out, report, listed, check, seal_key)
    _check_identities(report, check)
    _check_arithmetic(report, check)
    if results is not None:
        if agent is None and seal_key is not None and check.ok:
            # A signed report vouches for its agent: `verify-report OUT --results RUN
            # --control FILE`, as the README gives it, needed --agent besides.
            agent = report.registration.agent_id
        _compare_with_results(document, report, Path(results), control, agent, check, campaign)
    check.authenticated = seal_key is not None and check.ok
    return check


def _keys_for(
    report: CounterfactualReport, control: ControlFile | None, check: ReportCheck
) -> bytes | None:
    """With a control file, check the report's signature; the key its seals are signed
    with (None without one). A control file of another campaign is a UserError."""
    if control is None:
        return None
    registration = report.registration
    if registration.visibility != "private" and not _signed_with(control, report, check.out):
        raise UserError(
            f"{check.out} is a development report: it is unsigned and takes no control file",
            subject="control",
        )
    if (
        control.campaign_id != registration.campaign_id
        or control.campaign_digest != registration.campaign_digest
    ):
        mismatch = UserError(
            f"control file is for campaign {clip(control.campaign_id)} "
            f"({control.campaign_digest[:12]}), not the report's "
            f"{clip(registration.campaign_id)} ({registration.campaign_digest[:12]})",
            subject="control",
        )
        _changed_identity(mismatch, control, report, check)
    elif control.commitment() != registration.seed_commitment:
        mismatch = UserError(
            f"control file is for another world of campaign {clip(control.campaign_id)} "
            f"({control.campaign_digest[:12]}): the report's run was played with another "
            "seed commitment (another round's control file)",
            subject="control",
        )
        _changed_identity(mismatch, control, report, check)
    if report.signature is None:
        check.problems.append(
            f"{check.out / REPORT_FILE}: unsigned, but a private report is signed"
        )
    elif not report.signature_ok(control.report_key()):
        check.problems.append(
            f"{check.out / REPORT_FILE}: its signature is not the control file's "
            "(changed after signing, or signed with another key)"
        )
    return control.seal_key()


def _read(path: Path, what: str, check: ReportCheck) -> bytes | None:
    """A bounded read whose failure is recorded as a problem."""
    try:
        return read_bounded(path, what)
    except AccessError:
        raise
    except WorkbenchError as exc:
        check.problems.append(exc.message)
        return None


def _check_sums(
    out: Path, report: CounterfactualReport, check: ReportCheck
) -> dict[str, str] | None:
    """SHA256SUMS against report.json and the seal files; returns {file: sha256} listed
    (None when there is no SHA256SUMS to read: that one problem is recorded)."""
    sums_path = out / SUMS_FILE
    if not sums_path.exists():
        check.problems.append(f"{sums_path}: missing")
        return None
    data = _read(sums_path, "checksums", check)
    if data is None:
        return None
    if report.artifacts is None or hashlib.sha256(data).hexdigest() != report.artifacts.sha256sums:
        check.problems.append(f"{sums_path}: its SHA-256 differs from the one report.json names")
    listed: dict[str, str] = {}
    for number, line in enumerate(data.splitlines(), start=1):
        match = _SUM_LINE.fullmatch(line)
        if match is None:
            check.problems.append(f"{sums_path}:{number}: not a `sha256  seals/FILE` line")
            continue
        digest, name = match.group(1).decode(), match.group(2).decode()
        if name in listed:
            check.problems.append(f"{sums_path}:{number}: {name} is listed twice")
        listed[name] = digest
    on_disk = (
        {f"{SEALS_DIR}/{p.name}" for p in (out / SEALS_DIR).iterdir()}
        if (out / SEALS_DIR).is_dir()
        else set()
    )
    extra = sorted(
        p.name for p in out.iterdir() if p.name not in {REPORT_FILE, SUMS_FILE, SEALS_DIR}
    )
    for name in extra:
        check.problems.append(f"{out / name}: not part of an evaluation output")
    for name in sorted(on_disk - set(listed)):
        check.problems.append(f"{out / name}: not listed in {SUMS_FILE}")
    for name in sorted(listed):
        path = out / name
        if name not in on_disk:
            check.problems.append(f"{path}: listed in {SUMS_FILE} but missing")
            continue
        if path.is_symlink() or not path.is_file():
            check.problems.append(f"{path}: not a regular file")
            continue
        content = _read(path, "seal", check)
        if content is not None and hashlib.sha256(content).hexdigest() != listed[name]:
            check.problems.append(f"{path}: content differs from its {SUMS_FILE} line")
    return listed


Identity = tuple[str, str]
"""A seal's (branch, episode id): the key a branch record finds its seal by."""


def _signed_with(control: ControlFile, report: CounterfactualReport, out: Path) -> bool:
    """True when a seal of the evaluation in `out` carries the signature `control`'s seal
    key makes, for its campaign and world: the evaluation was made with this control file,
    whatever its report.json now says of its registration."""
    key = control.seal_key()
    files = {
        branch.seal_file
        for question in report.questions
        for _, branch in question.branches.named()
        if branch is not None and branch.seal_file is not None
    }
    for file in sorted(files):
        path = out / file
        if not path.is_file():
            continue
        seals = _open_seals(path, ReportCheck(out)) or {}
        for seal in seals.values():
            if (
                seal.campaign_digest == control.campaign_digest
                and seal.seed_commitment == control.commitment()
                and seal.signature_ok(key)
            ):
                return True
    return False


def _changed_identity(
    mismatch: UserError, control: ControlFile, report: CounterfactualReport, check: ReportCheck
) -> None:
    """A registration that is not the control file's: the wrong control file was given
    (`mismatch` is raised), unless the evaluation's seals are signed with this one's key,
    for its campaign and world: then it is the report that was changed (a problem)."""
    if not _signed_with(control, report, check.out):
        raise mismatch
    check.problems.append(
        f"{check.out / REPORT_FILE}: its registration is not the control file's, though its "
        "seals are signed with that control file's key: the report was changed"
    )


def _open_seals(path: Path, check: ReportCheck) -> dict[Identity, Seal] | None:
    """The seals in a gzip seals file by identity, read with a bound on its expanded size.

    Each line must be a canonical seal naming a branch and episode no other line names.
    """
    compressed = _read(path, "seals", check)
    if compressed is None:
        return None
    limit = LIMITS["seals"]
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(compressed)) as stream:
            data = read_at_most(stream, limit)
    except (OSError, EOFError, zlib.error):
        check.problems.append(f"{path}: not a whole gzip file")
        return None
    if len(data) > limit:
        check.problems.append(f"{path}: expands beyond the limit of {limit // MIB} MiB")
        return None
    seals: dict[Identity, Seal] = {}
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        try:
            seal = Seal.from_data(orjson.loads(line))
        except orjson.JSONDecodeError:
            check.problems.append(f"{path}:{number}: does not hold JSON")
            return None
        except SealFormatError as exc:
            check.problems.append(f"{path}:{number}: does not hold a seal ({exc})")
            return None
        if seal.to_bytes() != line:
            check.problems.append(f"{path}:{number}: does not hold a canonical seal")
            return None
        key = (str(seal.identities.get("branch")), str(seal.identities.get("episode_id")))
        if key in seals:
            check.problems.append(f"{path}:{number}: a second seal of one branch")
            return None
        seals[key] = seal
    return seals


def _check_branches(
    out: Path,
    report: CounterfactualReport,
    listed: dict[str, str] | None,
    check: ReportCheck,
    seal_key: bytes | None,
) -> None:
    """Each branch record against its own seal; every seal belongs to exactly one record.

    A record finds its seal in the file it names by branch and episode id; a seal that
    no record names, or a listed file no record names, is a problem. With `seal_key`,
    every seal a record names must carry the signature that key makes. Without a
    SHA256SUMS to read (`listed` None, already a problem) the seals are still checked,
    and no record is said to differ from it.
    """
    opened: dict[str, dict[Identity, Seal] | None] = {}
    named: dict[str, set[Identity]] = {}
    for question in report.questions:
        for name, branch in question.branches.named():
            if branch is None:
                continue
            where = f"report.json: {clip(question.id)} {clip(name)}"
            file = branch.seal_file
            if file is None:
                if branch.status == "ok":
                    check.problems.append(f"{where}: an ok branch without a seal file")
                continue
            key = (name, branch.episode_id)
            if key in named.setdefault(file, set()):
                check.problems.append(f"{where}: names a seal another record names")
            named[file].add(key)
            if listed is not None and listed.get(file) != branch.seal_sha256:
                check.problems.append(f"{where}: seal_sha256 differs from {SUMS_FILE} for {file}")
            path = out / file
            if (listed is not None and file not in listed) or not path.is_file():
                continue
            if file not in opened:
                opened[file] = _open_seals(path, check)
            seals = opened[file]
            if seals is None:
                continue
            seal = seals.get(key)
            if seal is None:
                check.problems.append(f"{where}: {file} holds no seal of this branch's episode")
                continue
            if seal.digest() != branch.seal_digest:
                check.problems.append(f"{where}: seal_digest differs from {file}")
            if seal.campaign_digest != report.registration.campaign_digest:
                check.problems.append(f"{where}: {file} is for another campaign")
            if seal_key is not None and not seal.signature_ok(seal_key):
                check.problems.append(
                    f"{where}: the seal's signature in {file} is not the control file's"
                )
    check.seals = sum(len(seals) for seals in opened.values() if seals)
    for file, seals in opened.items():
        for branch_name, episode in sorted(set(seals or {}) - named[file]):
            check.problems.append(
                f"{out / file}: holds a seal of {clip(branch_name)} {clip(episode)} "
                "that no branch record names"
            )
    for name in sorted(set(listed or {}) - set(named)):
        check.problems.append(f"{out / name}: no branch record of report.json names it")


def _check_identities(report: CounterfactualReport, check: ReportCheck) -> None:
    """What the report derives from its own fields: each question's contract is its own
    (its id, and the digest of its terms) and each branch's episode id is the one the
    evaluator derives from the run's journal head, the question and the branch, so a
    question cannot be renamed or its terms edited alone."""
    head = report.factual.journal_head
    for question in report.questions:
        where = f"report.json: {clip(question.id)}"
        contract = question.contract
        if contract.id != question.id:
            check.problems.append(f"{where}: its contract is the one of {clip(contract.id)}")
        if contract_digest(contract) != question.contract_digest:
            check.problems.append(f"{where}: contract_digest differs from its contract")
        for name, branch in question.branches.named():
            if branch is None:
                continue
            if branch.name != name:
                check.problems.append(f"{where} {name}: the record is named {clip(branch.name)}")
            if head is not None and branch.episode_id != episode_id(head, question.id, name):
                check.problems.append(
                    f"{where} {name}: episode id is not the one of this run, question and branch"
                )


def _decimal(text: str | None) -> Decimal | None:
    try:
        return None if text is None else Decimal(text)
    except InvalidOperation:
        return None


def _check_arithmetic(report: CounterfactualReport, check: ReportCheck) -> None:
    """Effects, losses, scores and the summary counts follow from the report's own numbers."""
    counts: dict[str, int] = {}
    for question in report.questions:
        counts[question.status] = counts.get(question.status, 0) + 1
        if question.status == "scored":
            _check_score(question, check)
    if report.summary is None:
        check.problems.append("report.json: has no summary")
        return
    summary = report.summary.model_dump()
    expected: dict[str, int] = {s: counts.get(s, 0) for s in QUESTION_STATUSES}
    expected["questions"] = len(report.questions)
    for key, count in expected.items():
        if summary.get(key) != count:
            check.problems.append(f"report.json: summary.{key} is not {count}")


def _check_score(question: QuestionEntry, check: ReportCheck) -> None:
    """A scored question's effect, loss and score follow from its outcomes and submission."""
    where = f"report.json: {clip(question.id)}"
    base, inter = question.branches.baseline, question.branches.intervention
    baseline = _decimal(base.outcome) if base else None
    intervention = _decimal(inter.outcome) if inter else None
    effect, loss, score = (_decimal(v) for v in (question.effect, question.loss, question.score))
    value = _decimal(question.submission.value) if question.submission else None
    scale = _decimal(question.contract.scale)
    if (
        baseline is None
        or intervention is None
        or effect is None
        or loss is None
        or score is None
        or value is None
        or scale is None
        or scale <= 0
    ):
        check.problems.append(f"{where}: a scored question with missing or bad numbers")
        return
    if effect != cf.effect(baseline, intervention):
        check.problems.append(f"{where}: effect is not intervention - baseline")
    if loss != cf.loss(value, effect, scale):
        check.problems.append(f"{where}: loss does not follow from value, effect and scale")
    if score != -loss:
        check.problems.append(f"{where}: score is not -loss")


def _compare_with_results(
    document: dict[str, Any],
    report: CounterfactualReport,
    results: Path,
    control: ControlFile | None,
    agent: str | None,
    check: ReportCheck,
    campaign: str | Path | None = None,
) -> None:
    """Evaluate the results directory again and compare (environment facts aside)."""
    check.compared_with = results
    questions = [q.id for q in report.questions] or None
    with tempfile.TemporaryDirectory(prefix="cfwb-verify-report-") as tmp:
        try:
            fresh = run_evaluation(
                results,
                Path(tmp) / "out",
                control=control,
                agent=agent,
                questions=questions,
                campaign=campaign,
            )
        except UserError as exc:
            if not questions or "unknown question" not in exc.message:
                raise
            check.problems.append(f"report.json: names questions {results} does not have")
            return
    if fresh.report_path is None:
        check.problems.append(f"{results}: {fresh.message}")
        return
    again = fresh.report.to_json()
    differences = list(_differences(_comparable(document), _comparable(again), ""))
    for path in differences[:_MAX_DIFFERENCES]:
        check.problems.append(f"report.json: {path} differs from evaluating {results} again")
    if len(differences) > _MAX_DIFFERENCES:
        check.problems.append(
            f"report.json: {len(differences) - _MAX_DIFFERENCES} more differences from {results}"
        )


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what may differ between honest evaluations of one run: the
    machine's execution facts (and so the signature over them) and the results
    directory's own name."""
    trimmed = {k: v for k, v in report.items() if k not in ("execution", "signature")}
    factual = trimmed.get("factual")
    if isinstance(factual, dict):
        trimmed["factual"] = {k: v for k, v in factual.items() if k != "run"}
    return trimmed


def _differences(a: Any, b: Any, path: str) -> list[str]:
    """Dotted paths at which two JSON values differ (lists by index, questions by id)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b), key=str):
            label = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                out.append(label)
            else:
                out.extend(_differences(a[key], b[key], label))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            name = x.get("id") if isinstance(x, dict) and isinstance(x.get("id"), str) else None
            label = f"{path}[{clip(name, 40)[1:-1] if name else index}]"
            out.extend(_differences(x, y, label))
        return out
    return [] if a == b else [path or "(whole report)"]
