"""Cross-file checks of a campaign: every reference resolves and every timing fits."""

from __future__ import annotations

import networkx as nx

from sim.campaign_errors import Problem
from sim.campaign_model import Action, ActionCatalog, Campaign, MetricsFile, QuestionsFile
from sim.chart import chart_for

_ACTIONS = "actions.toml"
_METRICS = "metrics.toml"
_QUESTIONS = "questions.toml"


def cross_check(
    campaign: Campaign, catalog: ActionCatalog, metrics: MetricsFile, questions: QuestionsFile
) -> list[Problem]:
    """Every problem that spans files."""
    problems: list[Problem] = []
    roles = {r.id for r in campaign.company.roles}
    suppliers = {s.id for s in campaign.suppliers}
    action_ids = [a.id for a in catalog.actions]
    known = set(action_ids)
    for i, action in enumerate(catalog.actions):
        where = f"actions[{i}]"
        if action_ids.count(action.id) > 1:
            problems.append(Problem(_ACTIONS, f"{where}.id", f"duplicate action id {action.id!r}"))
        for j, need in enumerate(action.staffing):
            if need.role not in roles:
                problems.append(
                    Problem(
                        _ACTIONS,
                        f"{where}.staffing[{j}].role",
                        f"unknown role {need.role!r} (roles: {sorted(roles)})",
                    )
                )
        for field in ("completed", "not_scheduled"):
            for j, other in enumerate(getattr(action.prerequisites, field)):
                if other not in known:
                    problems.append(
                        Problem(
                            _ACTIONS,
                            f"{where}.prerequisites.{field}[{j}]",
                            f"unknown action {other!r}",
                        )
                    )
        for role in action.prerequisites.min_headcount:
            if role not in roles:
                problems.append(
                    Problem(
                        _ACTIONS,
                        f"{where}.prerequisites.min_headcount.{role}",
                        f"unknown role {role!r}",
                    )
                )
        for j, effect in enumerate(action.effects):
            if effect.kind == "hire" and effect.role not in roles:
                problems.append(
                    Problem(_ACTIONS, f"{where}.effects[{j}].role", f"unknown role {effect.role!r}")
                )
            if effect.kind == "supplier" and effect.supplier not in suppliers:
                problems.append(
                    Problem(
                        _ACTIONS,
                        f"{where}.effects[{j}].supplier",
                        f"unknown supplier {effect.supplier!r}",
                    )
                )
    cycle = prerequisite_cycle(list(catalog.actions))
    if cycle:
        problems.append(
            Problem(
                _ACTIONS,
                "prerequisites.completed",
                "prerequisite cycle: " + " -> ".join([*cycle, cycle[0]]),
            )
        )
    accounts = set(chart_for(campaign, catalog).units())
    metric_ids = {m.id for m in metrics.metrics}
    for i, metric in enumerate(metrics.metrics):
        for j, term in enumerate(metric.terms):
            if not any(a == term.account or a.startswith(term.account + ":") for a in accounts):
                problems.append(
                    Problem(
                        _METRICS,
                        f"metrics[{i}].terms[{j}].account",
                        f"no ledger account at or under {term.account!r}",
                    )
                )
    for i, task in enumerate(metrics.tasks):
        for j, req in enumerate(task.requirements):
            if req.metric not in metric_ids:
                problems.append(
                    Problem(
                        _METRICS,
                        f"tasks[{i}].requirements[{j}].metric",
                        f"unknown metric {req.metric!r}",
                    )
                )
            if req.on_day is not None and req.on_day > campaign.horizon_days:
                problems.append(
                    Problem(
                        _METRICS, f"tasks[{i}].requirements[{j}].on_day", "is after the horizon"
                    )
                )
    horizon = campaign.horizon_days
    for i, q in enumerate(questions.questions):
        where = f"questions[{i}]"
        if q.metric not in metric_ids:
            problems.append(Problem(_QUESTIONS, f"{where}.metric", f"unknown metric {q.metric!r}"))
        if q.outcome_day > horizon:
            problems.append(
                Problem(
                    _QUESTIONS,
                    f"{where}.outcome_day",
                    f"outcome_day {q.outcome_day} is after the horizon {horizon}",
                )
            )
        for side in ("baseline", "intervention"):
            choice = getattr(q, side)
            for field in ("actions", "select_from"):
                for j, action_id in enumerate(getattr(choice, field)):
                    if action_id not in known:
                        problems.append(
                            Problem(
                                _QUESTIONS,
                                f"{where}.{side}.{field}[{j}]",
                                f"unknown action {action_id!r}",
                            )
                        )
        if q.conclusion is not None:
            in_choice = set(q.intervention.actions) | set(q.intervention.select_from)
            if q.conclusion.action not in in_choice:
                problems.append(
                    Problem(
                        _QUESTIONS,
                        f"{where}.conclusion.action",
                        f"action {q.conclusion.action!r} is not in the intervention choice",
                    )
                )
    question_ids = [q.id for q in questions.questions]
    for i, qid in enumerate(question_ids):
        if question_ids.count(qid) > 1:
            problems.append(Problem(_QUESTIONS, f"questions[{i}].id", f"duplicate id {qid!r}"))
    return problems


def prerequisite_cycle(actions: list[Action]) -> list[str] | None:
    """A cycle in the 'completed' prerequisite graph, if any (as a list of action ids)."""
    graph: nx.DiGraph[str] = nx.DiGraph()
    for action in actions:
        graph.add_node(action.id)
        for needed in action.prerequisites.completed:
            graph.add_edge(action.id, needed)
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return None
    return [edge[0] for edge in cycle]
