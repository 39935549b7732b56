"""What a run's operations read and never change: the campaign's terms and the seed's draws."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from sim.campaign_load import CampaignBundle
from sim.campaign_model import Action, Company, Demand, Role, Supplier
from sim.draws import ExogenousDraws, exogenous_draws


@dataclass(frozen=True)
class World:
    """The fixed inputs of one run, indexed once so the day loop reads them cheaply."""

    company: Company
    demand: Demand
    actions: Mapping[str, Action]
    draws: ExogenousDraws
    roles: tuple[Role, ...]
    productive_roles: tuple[Role, ...]
    suppliers: Mapping[str, Supplier]
    supplier_costs: Mapping[str, int]
    reach_decay_ppm: int
    _price_factors: dict[int, float] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, bundle: CampaignBundle, seed: int) -> World:
        """The world of `bundle` under `seed` (the draws are cached per seed and campaign)."""
        campaign = bundle.campaign
        roles = campaign.company.roles
        return cls(
            company=campaign.company,
            demand=campaign.demand,
            actions=bundle.actions,
            draws=exogenous_draws(seed, campaign),
            roles=roles,
            productive_roles=tuple(r for r in roles if r.units_per_day),
            suppliers={s.id: s for s in campaign.suppliers},
            supplier_costs={s.id: s.unit_cost for s in campaign.suppliers},
            reach_decay_ppm=round(campaign.demand.reach_decay * 1_000_000),
        )

    def price_factor(self, price: int) -> float:
        """Demand response to price: (price / reference)^(-elasticity), cached per price."""
        factor = self._price_factors.get(price)
        if factor is None:
            factor = (price / self.demand.reference_price) ** (-self.demand.elasticity)
            self._price_factors[price] = factor
        return factor
