"""The turn's integer program: ``build_model`` chooses a formulation and builds it.

Each formulation lives in its own module (``sets``, ``flow``, ``patterns``) and imports only the
shared pieces in ``turn``; this dispatcher imports them, never the other way round.
"""

from __future__ import annotations

from solver.errors import RulesError
from solver.model.flow import build_flow_model, flow_supported
from solver.model.patterns import build_pattern_model, pattern_supported
from solver.model.sets import build_set_model
from solver.model.table_jokers import needs_joker_rows
from solver.model.turn import TurnModel
from solver.position import Position
from solver.solution import Objective

__all__ = ["FORMULATIONS", "TurnModel", "build_model", "resolved_formulation"]

FORMULATIONS = ("auto", "sets", "flow", "patterns")


def build_model(
    position: Position,
    objective: Objective = Objective.TILES,
    formulation: str = "auto",
    exact: bool = False,
    short_hosts: bool = False,
) -> TurnModel:
    """The turn's integer program: ``sets``, ``flow``, ``patterns``, or ``auto`` (patterns after
    the initial meld and flow for it, where the rules allow them; sets otherwise).

    ``exact``: under strict or locked joker rules, the pattern formulation's exact model instead
    of its relaxation (``TurnModel.relaxed``: an answer must still be judged); ``short_hosts``:
    the relaxation's smaller model, no bound (see ``joker_fates.add_joker_fates``).
    """
    objective = Objective(objective)
    formulation = resolved_formulation(position, formulation)
    if formulation == "flow":
        return build_flow_model(position, objective)
    if formulation == "patterns":
        return build_pattern_model(position, objective, exact=exact, short_hosts=short_hosts)
    return build_set_model(position, objective)


def resolved_formulation(position: Position, formulation: str) -> str:
    """The formulation ``auto`` means for this turn, or the one asked for; RulesError if the
    turn's rules are beyond it (every backend and every path of a solve asks here first)."""
    strict = needs_joker_rows(position)
    if formulation == "auto":
        if not flow_supported(position.rules) or (strict and not pattern_supported(position)):
            return "sets"
        return "patterns" if pattern_supported(position) else "flow"
    if formulation not in FORMULATIONS:
        raise RulesError(f"unknown formulation {formulation!r} (formulations: {', '.join(FORMULATIONS)})")
    if formulation == "flow" and strict:
        better = "patterns or sets" if pattern_supported(position) else "sets"
        raise RulesError(f"the flow formulation has no strict or locked joker rules; use --formulation {better}")
    if formulation in ("flow", "patterns") and not flow_supported(position.rules):
        raise RulesError(
            f"the {formulation} formulation needs wrap none or american and fewer jokers than"
            " min-set-size; use --formulation sets"
        )
    if formulation == "patterns" and not position.opened:
        raise RulesError("the patterns formulation is for turns after the initial meld; use --formulation flow or sets")
    return formulation
