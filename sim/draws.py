"""Keyed exogenous draws: every random number is a pure function of (seed, semantic address).

A scalar draw hashes `(seed, address)` with SHA-256 (domain-separated) straight to a
uniform. A process draws vectors: the address `process` keys a Philox generator and
the value of `process/day=d/k` is uniform number `d * width + k` of that counter
stream, so extending the horizon or adding an action never moves another draw.
Branch-independent arrays are computed once per (seed, processes, horizon) and cached.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from sim.campaign_model import Campaign

DOMAIN = b"cfwb-draw/1\x00"
_TWO_POW_53 = float(2**53)


def address_digest(seed: int, address: str) -> bytes:
    """SHA-256 of the domain, the seed and the address."""
    return hashlib.sha256(DOMAIN + str(int(seed)).encode() + b"\x00" + address.encode()).digest()


def uniform(seed: int, address: str) -> float:
    """A uniform in [0, 1) for one address (53 bits of the digest)."""
    head = int.from_bytes(address_digest(seed, address)[:8], "big")
    return (head >> 11) / _TWO_POW_53


def process_generator(seed: int, process: str) -> np.random.Generator:
    """A Philox generator keyed by (seed, process address)."""
    key = int.from_bytes(address_digest(seed, process)[:16], "big")
    return np.random.Generator(np.random.Philox(key=key))


def process_uniforms(seed: int, process: str, days: int, width: int) -> np.ndarray:
    """Uniforms for `process/day=d/k`, d in 0..days, k in 0..width-1, as a (days+1, width) array."""
    return process_generator(seed, process).random((days + 1) * width).reshape(days + 1, width)


@dataclass(frozen=True)
class ExogenousDraws:
    """Branch-independent per-day quantities derived from the seed (plain lists for speed)."""

    demand_base: list[float]
    """Demand before price, marketing and lifts: base × season × noise × demand shocks."""
    demand_round: list[float]
    """Uniform used to round each day's demand stochastically (shared across branches)."""
    lead_uniform: dict[str, list[float]]
    """Per supplier, the uniform that sets the lead time of an order placed that day."""
    extra_lead_days: list[int]
    """Extra lead days from supply shocks active that day."""
    active_shocks: list[tuple[str, ...]]
    """Shock ids active each day."""


def _shock_days(
    seed: int, shock_id: str, min_days: int, max_days: int, p: float, horizon: int
) -> list[bool]:
    draws = process_uniforms(seed, f"shock/id={shock_id}", horizon, 2)
    active = [False] * (horizon + 1)
    remaining = 0
    for day in range(1, horizon + 1):
        if remaining == 0 and draws[day, 0] < p:
            remaining = min_days + int(draws[day, 1] * (max_days - min_days + 1))
        if remaining:
            active[day] = True
            remaining -= 1
    return active


def season(campaign: Campaign, day: int) -> float:
    """Weekly × annual seasonality for a day (deterministic, not random)."""
    d = campaign.demand
    annual = 1.0 + d.annual_amplitude * math.cos(2 * math.pi * (day - d.annual_peak_day) / 365.0)
    return d.weekly[day % 7] * annual


@lru_cache(maxsize=32)
def exogenous_draws(seed: int, campaign: Campaign) -> ExogenousDraws:
    """Compute (once per seed and campaign) every branch-independent draw to the horizon."""
    horizon = campaign.horizon_days
    demand = campaign.demand
    u = process_uniforms(seed, "demand", horizon, 3)
    u1 = np.maximum(u[:, 0], 1e-300)
    z = np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u[:, 1])
    sigma = demand.noise_sigma
    noise = np.exp(sigma * z - 0.5 * sigma * sigma)
    multiplier = np.ones(horizon + 1)
    extra = [0] * (horizon + 1)
    active: list[list[str]] = [[] for _ in range(horizon + 1)]
    for shock in campaign.shocks:
        days = _shock_days(
            seed, shock.id, shock.min_days, shock.max_days, shock.start_probability, horizon
        )
        for day, on in enumerate(days):
            if not on:
                continue
            active[day].append(shock.id)
            if shock.target == "demand":
                multiplier[day] *= shock.demand_multiplier
            else:
                extra[day] += shock.extra_lead_days
    seasonal = np.array([season(campaign, d) for d in range(horizon + 1)])
    base = demand.base_per_day * seasonal * noise * multiplier
    leads = {
        s.id: process_uniforms(seed, f"leadtime/supplier={s.id}", horizon, 1)[:, 0].tolist()
        for s in campaign.suppliers
    }
    return ExogenousDraws(
        demand_base=base.tolist(),
        demand_round=u[:, 2].tolist(),
        lead_uniform=leads,
        extra_lead_days=extra,
        active_shocks=[tuple(a) for a in active],
    )
