"""VC deal math: generate funding-round items and grade ownership answers strictly or loosely."""

from graders.vc_deal.batch import (
    Accuracy,
    BatchReport,
    GradeInputError,
    GradingInput,
    LineResult,
    Summary,
    grade_file,
    grade_inputs,
    parse_line,
    read_inputs,
    summarise,
)
from graders.vc_deal.dataset import dataset_sha256, to_jsonl
from graders.vc_deal.extract import (
    Extraction,
    completion_text,
    extract_answer,
    extract_value,
    normalise,
)
from graders.vc_deal.generator import (
    DEFAULT_NUM_EXAMPLES,
    DEFAULT_SEED,
    Difficulty,
    GenerationError,
    Item,
    generate,
    item_at,
    iter_items,
)
from graders.vc_deal.gold import gold_ownership, ownership_exact, round_cents
from graders.vc_deal.guard import leak_reason
from graders.vc_deal.panel import TextGrade, VCPanel
from graders.vc_deal.rewards import (
    format_valid_number,
    loose_correct,
    loose_reward,
    metrics,
    reward,
    rubric,
    strict_correct,
    strict_reward,
)
from graders.vc_deal.templates import TemplateBank, TemplateError, load_templates
from graders.vc_deal.verdicts import Verdicts, grade_completion, judge

__all__ = [
    "DEFAULT_NUM_EXAMPLES",
    "DEFAULT_SEED",
    "Accuracy",
    "BatchReport",
    "Difficulty",
    "Extraction",
    "GenerationError",
    "GradeInputError",
    "GradingInput",
    "Item",
    "LineResult",
    "Summary",
    "TemplateBank",
    "TemplateError",
    "TextGrade",
    "VCPanel",
    "Verdicts",
    "completion_text",
    "dataset_sha256",
    "extract_answer",
    "extract_value",
    "format_valid_number",
    "generate",
    "gold_ownership",
    "grade_completion",
    "grade_file",
    "grade_inputs",
    "item_at",
    "iter_items",
    "judge",
    "leak_reason",
    "load_templates",
    "loose_correct",
    "loose_reward",
    "metrics",
    "normalise",
    "ownership_exact",
    "parse_line",
    "read_inputs",
    "reward",
    "round_cents",
    "rubric",
    "strict_correct",
    "strict_reward",
    "summarise",
    "to_jsonl",
]
