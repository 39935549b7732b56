"""Column vocabularies (business and health) from which the naming stream picks plausible names."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Term:
    """One column name with its description and the location/scale it is staged at."""

    name: str
    description: str
    loc: float = 0.0
    scale: float = 1.0


@dataclass(frozen=True)
class Domain:
    """A coherent vocabulary: treatments, outcomes, pre- and post-treatment columns.

    `traps` name the adjustment family's extra pre-treatment column (an M-bias column or a
    proxy confounder); its description is completed with what drives it (dictionary.py).
    """

    name: str
    unit: str
    treatments: tuple[Term, ...]
    outcomes: tuple[Term, ...]
    pre: tuple[Term, ...]
    post: tuple[Term, ...]
    traps: tuple[Term, ...]


BUSINESS: Final = Domain(
    name="business",
    unit="customer account",
    treatments=(
        Term("loyalty_offer", "1 if the account was enrolled in the loyalty offer, else 0"),
        Term("premium_support", "1 if the account was moved to premium support, else 0"),
        Term("price_discount", "1 if the account received the targeted price discount, else 0"),
        Term("onboarding_call", "1 if the account received a personal onboarding call, else 0"),
        Term("email_campaign", "1 if the account was sent the retention email series, else 0"),
        Term("free_trial_extension", "1 if the account's free trial was extended, else 0"),
    ),
    outcomes=(
        Term("revenue_next_quarter", "Revenue from the account over the next quarter", 120.0),
        Term("spend_index", "Standardised spend of the account in the follow-up period", 50.0),
        Term("satisfaction_score", "Satisfaction survey score at the end of follow-up", 70.0),
        Term("orders_value", "Value of orders placed during the follow-up window", 80.0),
        Term("engagement_score", "Product engagement score measured at follow-up", 30.0),
        Term("net_margin", "Net margin earned on the account during follow-up", 15.0),
    ),
    pre=(
        Term("account_age_months", "Months since the account was opened", 30.0, 12.0),
        Term("prior_spend", "Spend of the account in the year before enrolment", 400.0, 90.0),
        Term("company_size", "Log-scaled head count of the customer company", 4.0, 1.1),
        Term("region_income_index", "Income index of the account's sales region", 100.0, 15.0),
        Term("support_tickets_prior", "Support tickets filed in the prior six months", 5.0, 2.0),
        Term("web_visits_prior", "Website visits in the month before enrolment", 20.0, 6.0),
        Term("contract_length", "Contract length in months at enrolment", 12.0, 4.0),
        Term("discount_history", "Share of past orders bought on discount (percent)", 25.0, 8.0),
        Term("credit_score", "Credit score of the account at enrolment", 680.0, 50.0),
        Term("seats_licensed", "Number of licensed seats at enrolment", 40.0, 12.0),
        Term("industry_growth", "Growth rate of the customer's industry (percent)", 3.0, 1.5),
        Term("tenure_of_contact", "Years the main contact has been with the customer", 6.0, 2.5),
        Term("prior_churn_risk", "Churn-risk score computed before enrolment", 0.0, 1.0),
        Term("marketing_touches", "Marketing touches in the quarter before enrolment", 8.0, 3.0),
    ),
    post=(
        Term("logins_after", "Logins recorded in the month after enrolment", 30.0, 8.0),
        Term("support_contacts_after", "Support contacts in the month after enrolment", 4.0, 1.5),
        Term("renewal_intent", "Renewal-intent score surveyed after enrolment", 50.0, 10.0),
        Term("referrals_made", "Referral score recorded during follow-up", 2.0, 1.0),
        Term("feature_adoption", "Feature-adoption index measured during follow-up", 60.0, 12.0),
        Term("complaints_logged", "Complaint index logged during follow-up", 3.0, 1.2),
    ),
    traps=(
        Term("partner_score", "Score the referral partner gave the account at sign-up", 50.0, 10.0),
        Term("lead_quality_index", "Lead-quality index assigned by sales at sign-up", 100.0, 20.0),
        Term("onboarding_priority", "Priority rating given to the account at sign-up", 3.0, 1.0),
    ),
)

HEALTH: Final = Domain(
    name="health",
    unit="patient",
    treatments=(
        Term("statin_prescribed", "1 if the patient was prescribed the statin, else 0"),
        Term("exercise_program", "1 if the patient joined the supervised exercise program, else 0"),
        Term("nurse_followup", "1 if the patient was assigned nurse follow-up calls, else 0"),
        Term("diet_counselling", "1 if the patient received diet counselling, else 0"),
        Term("new_inhaler", "1 if the patient was switched to the new inhaler, else 0"),
        Term("telehealth_enrolled", "1 if the patient was enrolled in telehealth, else 0"),
    ),
    outcomes=(
        Term("systolic_bp_change", "Change in systolic blood pressure at follow-up (mmHg)", 0.0),
        Term("ldl_followup", "LDL cholesterol at follow-up (scaled units)", 3.0),
        Term("quality_of_life", "Quality-of-life score at follow-up", 60.0),
        Term("hba1c_followup", "HbA1c at follow-up (scaled units)", 7.0),
        Term("fev1_followup", "Lung function (FEV1, scaled units) at follow-up", 2.5),
        Term("recovery_score", "Recovery score assessed at follow-up", 40.0),
    ),
    pre=(
        Term("age", "Age in years at baseline", 55.0, 12.0),
        Term("bmi", "Body-mass index at baseline", 27.0, 4.0),
        Term("baseline_bp", "Systolic blood pressure at baseline (mmHg)", 135.0, 15.0),
        Term("baseline_ldl", "LDL cholesterol at baseline (scaled units)", 3.2, 0.8),
        Term("smoking_years", "Pack-years of smoking at baseline", 10.0, 6.0),
        Term("comorbidity_index", "Comorbidity index at baseline", 2.0, 1.0),
        Term("income_band", "Household income index at baseline", 50.0, 15.0),
        Term("prior_visits", "Clinic visits in the year before baseline", 4.0, 2.0),
        Term("activity_minutes", "Weekly minutes of physical activity at baseline", 120.0, 40.0),
        Term("sleep_hours", "Average nightly sleep hours at baseline", 7.0, 1.0),
        Term("baseline_hba1c", "HbA1c at baseline (scaled units)", 6.5, 0.9),
        Term("distance_to_clinic", "Distance from home to clinic (km)", 12.0, 5.0),
        Term("stress_score", "Perceived-stress score at baseline", 15.0, 5.0),
        Term("family_history_score", "Family-history risk score at baseline", 0.0, 1.0),
    ),
    post=(
        Term("adherence_rate", "Medication adherence after assignment (percent)", 80.0, 8.0),
        Term("followup_visits", "Clinic visits recorded after assignment", 3.0, 1.2),
        Term("side_effect_score", "Side-effect score reported after assignment", 2.0, 1.0),
        Term("weight_change", "Weight change recorded after assignment (kg)", 0.0, 2.0),
        Term("hospital_days", "Hospital-day index recorded during follow-up", 1.0, 0.8),
        Term("symptom_diary", "Symptom-diary score kept during follow-up", 20.0, 5.0),
    ),
    traps=(
        Term("screening_score", "Screening score assigned at intake", 10.0, 3.0),
        Term("referral_priority", "Referral priority rating assigned at intake", 3.0, 1.0),
        Term("intake_risk_rating", "Risk rating recorded by the intake nurse", 5.0, 2.0),
    ),
)

DOMAINS: Final[tuple[Domain, ...]] = (BUSINESS, HEALTH)
