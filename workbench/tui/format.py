"""Text of the views as Rich markup, from typed core values (formatting only, no decisions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape

from workbench.display import amount

if TYPE_CHECKING:
    from workbench.play.objective import Briefing, CampaignSummary, ObjectiveProgress

STATUS_COLOURS = {"met": "green", "on track": "green", "behind": "yellow", "not met": "red"}


def briefing_text(brief: Briefing) -> str:
    """The briefing as markup: situation, objective, questions, how to play."""
    lines = [
        f"[b]{escape(brief.title)}[/b]",
        f"{brief.company} · {brief.horizon} days from {brief.start_date.isoformat()}",
        "",
        escape(brief.description),
        "",
    ]
    for target in brief.objectives:
        lines.append(f"[b]Objective:[/b] {escape(target.title)}")
        lines += [f"  • {goal.text}" for goal in target.goals]
    if brief.questions:
        lines += ["", "[b]Questions[/b] (predict intervention − baseline before each deadline)"]
        lines += [
            f"  • day {q.deadline_day:>3}  {q.question_id}: {escape(q.title)}"
            for q in brief.questions
        ]
    lines += [
        "",
        "[b]How to play[/b]  n next day · w seven days · ctrl+o then 2 schedules actions, "
        "3 answers questions · f finishes the run early · b shows this briefing again · "
        "f1 every key",
    ]
    return "\n".join(lines)


def objective_lines(progress: tuple[ObjectiveProgress, ...]) -> list[str]:
    """Each objective with its verdict and each goal's value against its threshold."""
    lines = []
    for item in progress:
        colour = STATUS_COLOURS[item.status]
        lines.append(f"[{colour}]{item.status}[/{colour}] · [b]{item.objective.title}[/b]")
        for goal in item.goals:
            mark = "✓" if goal.holds else "✗"
            value = amount(goal.value, goal.goal.units)
            gap = "" if goal.holds else f", {amount(goal.gap, goal.goal.units)} away"
            lines.append(f"  {mark} {goal.goal.text}: now {value}{gap}")
    return lines


def summary_text(summary: CampaignSummary) -> str:
    """The end-of-campaign summary as markup."""
    head = "The campaign is over" if summary.finished else "The campaign is still in play"
    lines = [f"[b]{head}[/b] (day {summary.day} of {summary.horizon})", ""]
    lines += objective_lines(summary.objectives)
    lines += [
        "",
        f"[b]Submissions[/b]: {summary.submissions_made} made; "
        f"{summary.answered} of {len(summary.questions)} question(s) have one that counts",
    ]
    for q in summary.questions:
        if q.answered:
            state = f"counts: #{q.counted_seq}, predicted {q.counted_value}"
        elif q.submissions:
            state = f"{q.submissions} submission(s), none before the deadline"
        else:
            state = "no submission"
        lines.append(f"  • {q.question_id} (deadline day {q.deadline_day}): {state}")
    lines += ["", "[b]What happens next[/b]"]
    lines += [f"  {step}" for step in summary.next_steps]
    return "\n".join(lines)
