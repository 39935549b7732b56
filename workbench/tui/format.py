"""Text of the views, from typed core values (formatting only, no decisions).

Values go into markup only as template variables (`workbench.tui.markup`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from workbench.display import amount
from workbench.tui.markup import joined, styled

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from workbench.play.models import SubmissionRow
    from workbench.play.objective import Briefing, CampaignSummary, ObjectiveProgress

STATUS_COLOURS = {"met": "green", "on track": "green", "behind": "yellow", "not met": "red"}


def briefing_text(brief: Briefing) -> Content:
    """The briefing: situation, objective, questions, how to play."""
    lines: list[Content | str] = [
        styled("[b]$title[/b]", title=brief.title),
        f"{brief.company} · {brief.horizon} days from {brief.start_date.isoformat()}",
        "",
        brief.description,
        "",
    ]
    for target in brief.objectives:
        lines.append(styled("[b]Objective:[/b] $title", title=target.title))
        lines += [f"  • {goal.text}" for goal in target.goals]
    if brief.questions:
        lines += [
            "",
            styled("[b]Questions[/b] (predict intervention − baseline before each deadline)"),
        ]
        lines += [
            f"  • day {q.deadline_day:>3}  {q.question_id}: {q.title}" for q in brief.questions
        ]
    lines += [
        "",
        styled(
            "[b]How to play[/b]  n next day · w seven days · ctrl+o then 2 schedules actions, "
            "3 answers questions · f finishes the run early · b shows this briefing again · "
            "f1 every key"
        ),
    ]
    return joined(lines)


def objective_lines(progress: tuple[ObjectiveProgress, ...]) -> list[Content | str]:
    """Each objective with its verdict and each goal's value against its threshold."""
    lines: list[Content | str] = []
    for item in progress:
        colour = STATUS_COLOURS[item.status]
        lines.append(
            styled(
                f"[{colour}]$status[/{colour}] · [b]$title[/b]",
                status=item.status,
                title=item.objective.title,
            )
        )
        for goal in item.goals:
            mark = "✓" if goal.holds else "✗"
            value = amount(goal.value, goal.goal.units)
            gap = "" if goal.holds else f", {amount(goal.gap, goal.goal.units)} away"
            lines.append(f"  {mark} {goal.goal.text}: now {value}{gap}")
    return lines


def submission_numbers(submissions: Sequence[SubmissionRow]) -> dict[int, int]:
    """Each submission's number among its own question's, by journal seq (1 for the first).

    The journal's seq counts every command (the header, each advance and schedule): the
    player's second submission was "#7". Players count their submissions per question.
    """
    made: dict[str, int] = {}
    numbers = {}
    for row in sorted(submissions, key=lambda row: row.seq):
        made[row.question] = made.get(row.question, 0) + 1
        numbers[row.seq] = made[row.question]
    return numbers


def submission_name(submissions: Sequence[SubmissionRow], seq: int | None) -> str:
    """`Submission 2 of q_spring_campaign`: the submission journaled at `seq`, as every
    screen names it (by its journal seq, so labelled, when it is not among `submissions`)."""
    row = next((row for row in submissions if row.seq == seq), None)
    if row is None:
        return f"Submission at journal seq {seq}"
    return f"Submission {submission_numbers(submissions)[row.seq]} of {row.question}"


def summary_text(summary: CampaignSummary, numbers: Mapping[int, int]) -> Content:
    """The end-of-campaign summary (`numbers`: each submission's, by journal seq)."""
    head = "The campaign is over" if summary.finished else "The campaign is still in play"
    lines: list[Content | str] = [
        styled(
            "[b]$head[/b] (day $day of $horizon)",
            head=head,
            day=summary.day,
            horizon=summary.horizon,
        ),
        "",
    ]
    lines += objective_lines(summary.objectives)
    lines += [
        "",
        styled(
            "[b]Submissions[/b]: $made made; $answered of $total question(s) have one that counts",
            made=summary.submissions_made,
            answered=summary.answered,
            total=len(summary.questions),
        ),
    ]
    for q in summary.questions:
        if q.answered and q.counted_seq is not None:
            number = numbers.get(q.counted_seq, q.submissions)
            state = f"counts: submission {number} of {q.submissions}, predicted {q.counted_value}"
        elif q.submissions:
            state = f"{q.submissions} submission(s), none before the deadline"
        else:
            state = "no submission"
        lines.append(f"  • {q.question_id} (deadline day {q.deadline_day}): {state}")
    lines += ["", styled("[b]What happens next[/b]")]
    lines += [f"  {step}" for step in summary.next_steps]
    return joined(lines)
