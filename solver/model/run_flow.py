"""Runs of one colour as a flow over the places a run may occupy, the piece that the flow and
pattern formulations, the joker fates and the least-moves arrangement share.

``places`` and ``number_at`` say which number each place holds (the numbers, and under
``wrap=american`` one more place holding a 1); ``add_run_flow`` adds one colour's run flow to a
model: ``s`` runs starting at a place, ``u`` runs at least ``min_set_size`` long covering it (see
``solver.model.flow`` for how a run is counted this way).
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.lp import INF, LinearModel
from solver.rules import RuleSet, Wrap


def places(rules: RuleSet) -> int:
    """Places a run can occupy: the numbers, and under wrap=american one more holding a 1."""
    return rules.numbers + 1 if rules.wrap is Wrap.AMERICAN else rules.numbers


def number_at(p: int, rules: RuleSet) -> int:
    """The number on place ``p`` (see ``places``)."""
    return 1 if p > rules.numbers else p


@dataclass(frozen=True)
class RunFlow:
    """Runs of one colour as a flow over the places 1..last: ``starts[p]`` runs begin at p, and
    ``mature[p]`` runs that have reached the minimum length cover p (and went on from p-1 or
    just reached it). A run of length L is one start and L - min_set_size + 1 mature places."""

    min_size: int
    starts: dict[int, int]  # place -> variable
    mature: dict[int, int]  # place -> variable

    def covering(self, p: int) -> list[int]:
        """The variables counting runs that cover place ``p``: young runs started within reach,
        and the mature ones."""
        covering = [self.starts[q] for q in range(p - self.min_size + 2, p + 1) if q in self.starts]
        if p in self.mature:
            covering.append(self.mature[p])
        return covering


def add_run_flow(
    lp: LinearModel,
    prefix: str,
    infix: str,
    min_size: int,
    start_upper: dict[int, int],
    mature_upper: dict[int, int],
    longest: int,
) -> RunFlow:
    """The variables and rows of one colour's run flow (shared by the flow formulation and the
    least-moves arrangement). Variables are named ``{prefix}s{infix}{p}`` and ``{prefix}u{infix}{p}``;
    ``start_upper`` gives the places a run may start at (1..last-min+1), ``mature_upper`` the
    places a mature run may cover (min..last), each with its bound; no run is longer than
    ``longest`` (the numbers: a run never repeats one)."""
    m = min_size
    starts = {p: lp.var(f"{prefix}s{infix}{p}", upper) for p, upper in start_upper.items()}
    mature = {p: lp.var(f"{prefix}u{infix}{p}", upper) for p, upper in mature_upper.items()}
    for p in mature:
        # Runs that reach the minimum length at p cannot have ended yet ...
        just = (starts[p - m + 1], -1)
        lp.row(f"{prefix}young{infix}{p}", [(mature[p], 1), just], 0, INF)
        # ... and a mature run at p went on from p-1 or has just reached the minimum length.
        terms = [(mature[p], 1), just]
        if p - 1 in mature:
            terms.append((mature[p - 1], -1))
        lp.row(f"{prefix}grow{infix}{p}", terms, -INF, 0)
    flow = RunFlow(m, starts, mature)
    last = max([*mature, *starts], default=0)
    assert last <= longest + 1, "places beyond the numbers plus the wrap's 1"
    if last == longest + 1 and 1 in starts and longest >= m:
        # Under wrap=american place numbers+1 holds a 1 again: a run from place 1 reaching it
        # would repeat the 1. Decoders end the longest runs first, so runs started at place 1 end
        # before place numbers+1 if at least as many runs end at places m..numbers; those ends
        # telescope to cover(m) - cover(last) + starts at m+1..last.
        ends = [(v, 1) for v in flow.covering(m)] + [(v, -1) for v in flow.covering(last)]
        ends += [(starts[p], 1) for p in range(m + 1, last + 1) if p in starts]
        lp.row(f"{prefix}nowrap{infix}", [(starts[1], 1), *[(v, -c) for v, c in ends]], -INF, 0)
    return flow
