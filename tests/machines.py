"""Settings shared by the suite's hypothesis state machines."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def machine_settings(examples: int, steps: int) -> settings:
    """`examples` runs of up to `steps` rules each, the same every time (derandomized, no
    example database) and without a deadline: the rules write, fsync and replay runs."""
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
