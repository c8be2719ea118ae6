"""JSON in, one library call, JSON out, for positions, puzzles and one-turn solves (games and
reviews have modules of their own: ``web.games``, ``web.reviews``).

Each endpoint function takes the decoded request (and the server's limits) and returns what the
response body holds, in the CLI's JSON shapes (``solve --json``, ``check --json``, ``hint --json``,
``puzzles list/show --json``). A request a person got wrong raises ``RequestError`` (``web.request``,
which reads the fields every endpoint shares); ``answer`` runs an endpoint through ``call``, which
turns every outcome, a bug included, into a status and a JSON body.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

from puzzles.generate import GENERATED_ID, find_puzzle
from puzzles.library import Puzzle, library
from solver.check import check_answer
from solver.errors import InputError
from solver.executors import ignore_interrupts
from solver.file_io import decode_text
from solver.files import RECORD_FIELDS, answer_from_record, parse_tokens, position_from_record
from solver.files import position_from_text as read_position_text
from solver.hint import hint as make_hint
from solver.melds import why_invalid
from solver.position import Position
from solver.rules import COLOUR_LETTERS, COLOUR_NAMES, JokerRules, Retrieval, RuleSet, Wrap
from solver.solution import Objective, Solution, Status
from solver.solve import SolveOptions
from solver.solve import solve as solve_position
from solver.steps import Plan, best_steps, tables_after_steps
from web.limits import Limits
from web.request import (
    RequestError,
    call,
    check_bounds,
    check_rules,
    label_of,
    request_object,
    rules_from,
    server_bounds,
    shown,
)

Json = dict[str, Any]
OBJECTIVES = tuple(o.value for o in Objective)
BACKEND = "bnb"  # the fastest exact backend, in-process: nothing else is offered over the web


# --------------------------------------------------------------------------- what the pages need


def rules_info(limits: Limits) -> Json:
    """The rule options with their defaults, the values this server takes, and the colours, so a
    page can offer every option the CLI has without knowing them itself."""
    defaults = RuleSet().to_dict()
    return {
        "defaults": defaults,
        "bounds": {key: list(limits.rule_bounds[key]) for key in defaults if key in limits.rule_bounds},
        "choices": {
            "wrap": [w.value for w in Wrap],
            "joker-rules": [j.value for j in JokerRules],
            "joker-retrieval": [r.value for r in Retrieval],
        },
        "colours": [{"letter": letter, "name": name} for letter, name in zip(COLOUR_LETTERS, COLOUR_NAMES)],
        "objectives": list(OBJECTIVES),
        "time_limit": limits.time_limit,
    }


def tiles(body: Any, limits: Limits) -> Json:
    """Tiles typed in the notation (``R4-7``, ``KBR7``, ``J``) under the request's rules, expanded."""
    fields = request_object(body, {"text", "rules"})
    if not isinstance(fields.get("text"), str):
        raise RequestError(400, "request: 'text' must be a string of tiles such as \"R4-7 KBR7\"")
    rules = rules_from(fields.get("rules", {}), limits)
    return {"tiles": [str(t) for t, _ in parse_tokens(fields["text"], "the typed tiles", rules)]}


def sets(body: Any, limits: Limits) -> Json:
    """Table sets judged one by one, as the validator judges them (``why_invalid``): ``{"sets":
    [["K1", "K2"], "R4 J R6"], "rules": {...}}`` gives ``{"sets": [{"valid": false, "problem":
    "too short: …"}, {"valid": true, "problem": null}]}``, for a board that marks every invalid
    set while a position is built (before any solve refuses it)."""
    fields = request_object(body, {"sets", "rules"})
    if "sets" not in fields:
        raise RequestError(400, "request: missing field 'sets' (a list of sets, each a list of tiles or one string)")
    rules = rules_from(fields.get("rules", {}), limits)
    table = answer_from_record(fields["sets"], "sets", rules)
    # Beyond what any table of these rules holds, a set is too long to be one; not worth reading.
    most = rules.numbers * rules.colours * rules.copies + rules.jokers
    if len(table) > most or any(len(s) > most for s in table):
        raise RequestError(400, f"request: more sets or tiles than a table of these rules holds ({most} tiles)")
    problems = [why_invalid(s, rules) for s in table]
    return {"sets": [{"valid": p is None, "problem": p} for p in problems]}


def position(body: Any, limits: Limits) -> Json:
    """A position in the batch input format, checked and written out in full (canonical tiles,
    every rule), as a page loading a shared link needs it."""
    if isinstance(body, dict) and isinstance(body.get("rules"), dict):
        check_bounds({k: v for k, v in body["rules"].items() if type(v) is int}, limits)
    found = position_from_record(body, "request", parts_alone=True)
    check_rules(found.rules, limits)
    return found.to_dict()


def upload(data: bytes, name: str, limits: Limits) -> Json:
    """An uploaded position file, by content (the formats ``rummikub solve FILE`` reads). The name
    only labels messages: nothing is ever read from the server's disk."""
    label = label_of(name)
    with server_bounds(limits):
        found = read_position_text(decode_text(data, f"position file {label}"), label)
    check_rules(found.rules, limits)
    return found.to_dict()


def puzzles(difficulty: str | None) -> list[Json]:
    """The bundled puzzles, as ``puzzles list --json`` (optionally of one difficulty)."""
    level = None
    if difficulty is not None:
        if difficulty not in ("1", "2", "3", "4", "5"):
            raise RequestError(400, f"difficulty must be 1, 2, 3, 4 or 5, got {shown(difficulty)}")
        level = int(difficulty)
    return [p.summary() for p in _library().values() if level is None or p.difficulty == level]


def puzzle(puzzle_id: str, answer: str | None) -> Json:
    """One puzzle, as ``puzzles show --json``, its recorded answer only when asked."""
    return _puzzle(puzzle_id, 404).to_dict(answer=_query_flag(answer, "answer"))


# --------------------------------------------------------------------------- the solver's answers


def solve(body: Any, limits: Limits) -> Json:
    """The best move, as ``solve --json`` plus ``from_rack``; with ``"steps": true`` as ``solve
    --steps --json``, each step also in words (``text``) and with the table as it stands after it
    (``after``)."""
    found, options = _position(body, {"objective", "steps", "time_limit"}, limits)
    time_limit = _time_limit(options, limits)
    steps = _flag(options.get("steps", False), "steps")
    solution = solve_position(found, _solve_options(options, time_limit))
    if not steps:
        return _noted(_solution(solution), solution, time_limit)
    solution, plan = best_steps(solution, BACKEND, time_limit)
    data = _solution(solution)
    data["steps"] = _steps(solution, plan)
    data["tiles_moved"] = plan.tiles_moved
    return _noted(data, solution, time_limit)


def check(body: Any, limits: Limits) -> Json:
    """A proposed table judged, as ``check --json`` (``"show": true`` adds the optimum); each
    violation also names the answer's sets it is about (``sets``, indices from 0)."""
    found, options = _position(body, {"answer", "objective", "show", "time_limit"}, limits)
    if "answer" not in options:
        raise RequestError(400, "request: missing field 'answer' (the table after the move, a list of sets)")
    answer = answer_from_record(options["answer"], "answer", found.rules)
    time_limit = _time_limit(options, limits)
    show = _flag(options.get("show", False), "show")
    report = check_answer(found, answer, _solve_options(options, time_limit))
    data = report.to_dict(show)
    for violation, sets in zip(data["violations"], report.violation_sets()):
        violation["sets"] = list(sets)
    if not report.proven:
        data["note"] = (
            f"the server's time limit ({time_limit:g} s) stopped the search for the optimum:"
            " optimal_tiles and optimal_points are the best move found, not proven optimal"
        )
    return data


def hint(body: Any, limits: Limits) -> Json:
    """A hint of ``level`` 1, 2 or 3, as ``hint --json`` (level 3's steps as in ``solve``)."""
    found, options = _position(body, {"level", "objective", "time_limit"}, limits)
    level = options.get("level", 1)
    if type(level) is not int or level not in (1, 2, 3):
        raise RequestError(400, f"request: 'level' must be 1, 2 or 3, got {shown(level)}")
    time_limit = _time_limit(options, limits)
    found_hint = make_hint(found, level, _solve_options(options, time_limit))
    data = found_hint.to_dict()
    if level == 3:
        data["steps"] = _steps(found_hint.solution, found_hint.plan)
    return _noted(data, found_hint.solution, time_limit)


# --------------------------------------------------------------------------- running one request

ENDPOINTS: dict[str, Callable[..., Any]] = {
    "rules": rules_info,
    "tiles": tiles,
    "sets": sets,
    "position": position,
    "upload": upload,
    "puzzles": puzzles,
    "puzzle": puzzle,
    "solve": solve,
    "check": check,
    "hint": hint,
}


def answer(endpoint: str, *args: Any) -> tuple[int, Any]:
    """Run one endpoint: (HTTP status, JSON body), through :func:`call` (never raises)."""
    return call(ENDPOINTS[endpoint], *args)


def start_worker() -> None:
    """A solver process's start: Ctrl-C is the server's to handle; the solver is loaded and its
    models built once, so the first request is answered as fast as the rest."""
    ignore_interrupts()
    for opened in (True, False):
        solve_position(
            Position.from_strings("R10 R11 R12 B1", ["K1 K2 K3"], opened), SolveOptions(backend=BACKEND)
        )
    _library()


# --------------------------------------------------------------------------- the endpoints' fields


def _position(body: Any, option_fields: set[str], limits: Limits) -> tuple[Position, Json]:
    """The request's position (the batch input format, or a puzzle by its id) and its options."""
    fields = request_object(body, {*RECORD_FIELDS, "puzzle", *option_fields})
    options = {key: value for key, value in fields.items() if key in option_fields}
    record = {key: value for key, value in fields.items() if key in RECORD_FIELDS}
    if "puzzle" in fields:
        if record:
            raise RequestError(
                400, f"request: give a 'puzzle' id or a position, not both (got {shown(next(iter(record)))} too)"
            )
        if not isinstance(fields["puzzle"], str):
            raise RequestError(
                400,
                f"request: 'puzzle' must be a puzzle id such as \"split-run\", got {shown(fields['puzzle'])}",
            )
        return _puzzle(fields["puzzle"], 400).position, options
    if isinstance(record.get("rules"), dict):  # this server's bounds before the rules' own wider ones
        check_bounds({k: v for k, v in record["rules"].items() if type(v) is int}, limits)
    found = position_from_record(record, "request", parts_alone=True)
    check_rules(found.rules, limits)
    return found, options


def _solve_options(options: Json, time_limit: float) -> SolveOptions:
    objective = options.get("objective", "tiles")
    if objective not in OBJECTIVES:
        raise RequestError(400, f"request: 'objective' must be tiles or points, got {shown(objective)}")
    return SolveOptions(objective=objective, backend=BACKEND, time_limit=time_limit)


def _time_limit(options: Json, limits: Limits) -> float:
    """The request's time limit, never above the server's."""
    asked = options.get("time_limit", limits.time_limit)
    if isinstance(asked, bool) or not isinstance(asked, (int, float)) or not 0 < asked < math.inf:
        raise RequestError(
            400, f"request: 'time_limit' must be a number of seconds above 0, got {shown(asked)}"
        )
    return min(float(asked), limits.time_limit)


def _flag(value: Any, name: str) -> bool:
    """A JSON field that is true or false (as 'initial_meld' is: no words for it)."""
    if isinstance(value, bool):
        return value
    raise RequestError(400, f"request: '{name}' must be true or false, got {shown(value)}")


def _query_flag(value: str | None, name: str) -> bool:
    """A flag in an address (``?answer=yes``): absent is false."""
    words = {"yes": True, "true": True, "1": True, "no": False, "false": False, "0": False}
    if value is None:
        return False
    if value.lower() in words:
        return words[value.lower()]
    raise RequestError(400, f"request: '{name}' must be yes or no, got {shown(value)}")


# --------------------------------------------------------------------------- answers in JSON


@cache
def _library() -> dict[str, Puzzle]:
    """The bundled puzzles by id, read once (they ship with the package and do not change)."""
    return {p.id: p for p in library()}


def is_generated(puzzle_id: str) -> bool:
    """Whether the id names a generated puzzle, not a bundled one (made on request: a solve)."""
    return puzzle_id not in _library() and GENERATED_ID.fullmatch(puzzle_id) is not None


@lru_cache(maxsize=256)
def _generated(puzzle_id: str) -> Puzzle:
    """A generated puzzle (gen-LEVEL-SEED), made once per solver process."""
    return find_puzzle(puzzle_id)


def _puzzle(puzzle_id: str, status: int) -> Puzzle:
    puzzles = _library()
    if puzzle_id in puzzles:
        return puzzles[puzzle_id]
    if not puzzle_id.startswith("gen-"):
        raise RequestError(status, f"no puzzle {shown(puzzle_id)}: GET /api/puzzles lists them")
    try:
        return _generated(puzzle_id)
    except InputError as err:  # as the CLI says it: what a gen-LEVEL-SEED id is (gen-2-007 is not one)
        raise RequestError(status, str(err)) from None


def _solution(solution: Solution) -> Json:
    """``solve --json``, and which tiles of each set come from the rack (for a picture to
    highlight: copies are interchangeable, so the library decides which one is "the played R5")."""
    data = solution.to_dict()
    data["from_rack"] = [list(s.from_rack) for s in solution.table]
    return data


def _steps(solution: Solution, plan: Plan) -> list[Json]:
    """The steps as the CLI's JSON, each with its words and the table as it stands after it."""
    position = solution.position
    written = [s.tiles for s in solution.table]
    after = tables_after_steps(position.table, plan, solution.played, position.rules, written)
    return [
        {**step.to_dict(), "text": str(step), "after": at.to_dict()} for step, at in zip(plan.steps, after)
    ]


def _noted(data: Json, solution: Solution, time_limit: float) -> Json:
    if solution.status is Status.TIME_LIMIT:
        data["note"] = (
            f"the server's time limit ({time_limit:g} s) stopped the search: the move is legal,"
            " the best found, but not proven optimal"
        )
    return data


__all__ = ["BACKEND", "ENDPOINTS", "answer", "is_generated", "puzzle", "start_worker"]
