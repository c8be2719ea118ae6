"""A game record reviewed in the browser, turn by turn, with ``rummikub analyze``'s verdicts.

A record (uploaded by content, or a finished round of a game played here) is kept in the store
under an id of its own, so that a review survives a reload. Each turn is judged on request, one
solve in a worker process under the server's time limit (a long record never holds a request
for long, and a page shows the verdicts as they come); the judged turns are remembered, and the
summary per player is made from them once every turn is judged, as ``analyze`` makes it. As
``analyze --objective``, a review judges by tiles (the default) or by points, each kept apart.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from solver.file_io import decode_text
from solver.game.analysis import TurnAnalysis, judge_turn, summarize
from solver.game.engine import TurnRecord
from solver.game.records import GameRecord, parse_record
from solver.solution import Objective
from solver.solve import SolveOptions
from solver.tiles import table_as_lists
from web.endpoints import BACKEND
from web.games import changed_sets, from_rack
from web.limits import Limits
from web.request import RequestError, check_rules, label_of, server_bounds, shown
from web.store import NotFound, Store

Json = dict[str, Any]
RECORD = "record.jsonl"
NAME = "name.txt"
KEPT = 64  # reviews whose judged turns are remembered (the others are judged again if asked)


def read(data: bytes, name: str, limits: Limits) -> tuple[GameRecord, str]:
    """An uploaded record (its bytes): checked as ``analyze`` checks it, its rules within the
    server's bounds; the record and its text."""
    label = label_of(name)
    text = decode_text(data, f"record {label}")
    with server_bounds(limits):
        record = parse_record(text, label)
    check_rules(record.rules, limits)
    return record, text


class Reviews:
    """The reviews in the store, and the turns judged so far of the recently used ones."""

    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self.judged: OrderedDict[tuple[str, Objective], dict[int, TurnAnalysis]] = OrderedDict()

    def create(self, text: str, name: str) -> str:
        key = self.store.create("reviews")
        self.store.write("reviews", key, NAME, label_of(name))
        self.store.write("reviews", key, RECORD, text)
        return key

    def record(self, key: str) -> tuple[GameRecord, str]:
        try:
            text = self.store.read("reviews", key, RECORD)
        except NotFound as err:
            raise RequestError(404, err.message("review")) from None
        if text is None:
            raise RequestError(404, NotFound(key).message("review"))
        name = self.store.read("reviews", key, NAME) or "record"
        return parse_record(text, name), name

    def _judged(self, key: str, objective: Objective) -> dict[int, TurnAnalysis]:
        found = self.judged.setdefault((key, objective), {})
        self.judged.move_to_end((key, objective))
        while len(self.judged) > KEPT:
            self.judged.popitem(last=False)
        return found

    def view(self, key: str, objective: str | None = None) -> Json:
        """The whole record for the page (a finished game: every rack may be seen), and which
        turns are judged already by ``objective`` (``?objective=``)."""
        by = objective_of(objective)
        record, name = self.record(key)
        header = record.header
        self.store.touch("reviews", key)
        return {
            "id": key,
            "name": name,
            "expires": int(self.store.expires("reviews", key)),
            "rules": header.rules.to_dict(),
            "scoring": header.scoring,
            "seed": str(header.seed),  # a 64-bit seed is more than a page's numbers hold exactly
            "first_player": header.first_player,
            "players": [p.to_dict() for p in header.players],
            "turns": [_turn(t) for t in record.turns],
            "result": None if record.result is None else {k: v for k, v in record.result.to_dict().items() if k != "type"},
            "judged": sorted(self._judged(key, by)),
        }

    def turn(
        self, key: str, number: int, objective: str | None
    ) -> tuple[GameRecord, TurnRecord, Objective, TurnAnalysis | None]:
        """Turn ``number``, by which objective it is judged, and its verdict if it has one."""
        by = objective_of(objective)
        record, _ = self.record(key)
        if not 1 <= number <= len(record.turns):
            raise RequestError(404, f"no turn {number} in this record (it has {len(record.turns)} turns)")
        return record, record.turns[number - 1], by, self._judged(key, by).get(number)

    def keep(self, key: str, number: int, objective: Objective, analysis: TurnAnalysis) -> Json:
        self._judged(key, objective)[number] = analysis
        return judged_json(analysis)

    def summary(self, key: str, objective: str | None) -> Json:
        by = objective_of(objective)
        record, _ = self.record(key)
        judged = self._judged(key, by)
        missing = [t.turn for t in record.turns if t.turn not in judged]
        if missing:
            raise RequestError(
                409,
                f"{len(missing)} of {len(record.turns)} turns are not judged yet (ask for each turn first,"
                f" e.g. turn {missing[0]})",
            )
        turns = [judged[t.turn] for t in record.turns]
        return {"summary": [s.to_dict() for s in summarize(record, turns, by)]}


def objective_of(query: str | None) -> Objective:
    """``?objective=tiles|points`` (tiles when not given)."""
    if query is None:
        return Objective.TILES
    try:
        return Objective(query)
    except ValueError:
        raise RequestError(400, f"request: 'objective' must be tiles or points, got {shown(query)}") from None


def judge(turn: TurnRecord, record: GameRecord, time_limit: float, objective: Objective) -> TurnAnalysis:
    """One turn judged (run in a solver process): ``analyze``'s verdict, under the time limit."""
    bare = GameRecord(record.header, (), None)  # judging needs the rules; the turns stay behind
    return judge_turn(turn, bare, SolveOptions(objective=objective, backend=BACKEND, time_limit=time_limit))


def judged_json(analysis: TurnAnalysis) -> Json:
    """``analyze --json``'s turn, with the tiles of each set laid from the rack marked, for the
    move played and for the better move."""
    data = analysis.to_dict()
    turn = analysis.turn
    changed = changed_sets(turn.table, turn.table_after, rules=analysis.position.rules)
    data["table_after"] = table_as_lists(turn.table_after)
    data["from_rack"] = from_rack(turn.table_after, turn.played, changed)
    if "better" in data:
        data["better"]["from_rack"] = [list(s.from_rack) for s in analysis.best.table]
    data["status"] = analysis.best.status.value
    return data


def _turn(turn: TurnRecord) -> Json:
    data = turn.to_dict()
    data.pop("type")
    return data
