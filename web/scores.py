"""Score sheets for games played at a real table (``rummikub score``), in the browser.

The page keeps the sheet (in the browser, and as a download): every request carries it, in the
score file's own form, and gets it back with the new round and everything computed from it, as
``score show --json`` gives it. So the file the page saves is the file ``rummikub score`` reads
and writes, and a sheet started at the command line can be opened here (and the other way).
Nothing is stored on the server.
"""

from __future__ import annotations

import json
from typing import Any

from solver.game.scoresheet import Sheet, dumps, loads, new_sheet, round_from_json
from web.request import RequestError, request_object

Json = dict[str, Any]
WHERE = "in the request"  # how messages name the sheet a request carries


def new(body: Any) -> Json:
    """A sheet with no rounds: ``{"players": ["Ann", "Bob"], "scoring": "club", "joker_penalty":
    100}`` (``players`` also as "Ann,Bob"; the penalty defaults to the scoring's)."""
    fields = request_object(body, {"players", "scoring", "joker_penalty"})
    players = fields.get("players")
    if not isinstance(players, str | list) or (isinstance(players, list) and not all(isinstance(p, str) for p in players)):
        raise RequestError(400, "request: 'players' must be the names in seat order, like [\"Ann\", \"Bob\"]")
    scoring = fields.get("scoring", "standard")
    penalty = fields.get("joker_penalty")
    if not isinstance(scoring, str):
        raise RequestError(400, "request: 'scoring' must be \"standard\" or \"club\"")
    if penalty is not None and type(penalty) is not int:
        raise RequestError(400, "request: 'joker_penalty' must be 30, 50 or 100")
    return _answer(new_sheet(players, scoring, penalty))


def add_round(body: Any) -> Json:
    """The sheet with one more round, or round ``replace`` (from 1) corrected: ``{"sheet": ...,
    "round": {"winner": "Ann", "racks": {"Bob": "R5 K12 J", "Cy": 23}}}``, the round as the
    score file writes it."""
    fields = request_object(body, {"sheet", "round", "replace"})
    sheet = _sheet(fields)
    if "round" not in fields:
        raise RequestError(400, "request: missing field 'round' (as the score file writes one)")
    replace = fields.get("replace")
    if replace is not None:
        if type(replace) is not int:
            raise RequestError(400, "request: 'replace' must be the number of a round, from 1")
        sheet.check_round_number(replace)
        where = f"round {replace}"
    else:
        where = f"round {len(sheet.rounds) + 1}"
    entered = round_from_json(fields["round"], sheet, where)
    return _answer(sheet.with_round(entered) if replace is None else sheet.with_round_replaced(replace, entered))


def show(body: Any) -> Json:
    """A sheet read (an opened file, say) and everything computed from it: ``{"sheet": ...}``."""
    return _answer(_sheet(request_object(body, {"sheet"})))


def _sheet(fields: Json) -> Sheet:
    if "sheet" not in fields:
        raise RequestError(400, "request: missing field 'sheet' (the score file, as an object)")
    return loads(json.dumps(fields["sheet"]), WHERE)


def _answer(sheet: Sheet) -> Json:
    """The sheet as the file holds it (``file``: its very text), and ``score show --json``."""
    text = dumps(sheet)
    return {"sheet": json.loads(text), "file": text, "results": sheet.results().to_dict()}
