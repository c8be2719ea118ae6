"""HTTP: the routes, request bodies read within a size cap, JSON decoded, errors as JSON.

Every answer of the API is JSON, an error ``{"error": "<one line>"}`` with a 4xx status for a
request a person got wrong (never a traceback). The solver is reached only through the web's
own modules (``endpoints``, ``games``, ``reviews``, ``scores``): cheap calls (parsing, the
puzzle list) in a thread, solves in the worker pool; here, only the request's JSON is read.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from solver.errors import InputError
from solver.file_io import load_json
from web import endpoints, games, reviews, scores
from web.games import Sessions
from web.limits import Limits
from web.pool import SolverPool
from web.request import RequestError, call, one_line, printable, shown
from web.reviews import Reviews
from web.store import Store, default_directory

STATIC = Path(str(resources.files("web") / "static"))
# The pages load nothing from elsewhere and run no inline script: the policy makes that hold.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def create_app(
    limits: Limits | None = None,
    pool_kind: str = "process",
    games_dir: Path | None = None,
    keep_days: float = 30.0,
) -> Starlette:
    """The app; its solver pool starts with it (and is warm before the first request). Games and
    reviews are kept in ``games_dir`` (default: the user's data directory), each for
    ``keep_days`` after it was last used."""
    limits = limits or Limits()
    store = Store(games_dir or default_directory() / "games", keep_days)
    store.sweep(now=time.time())
    server = _Server(limits, pool_kind)
    sessions = Sessions(store, limits)
    kept_reviews = Reviews(store, limits)
    routes = [
        *_pages(),
        *_GameApi(server, sessions, kept_reviews).routes(),
        *_ReviewApi(server, kept_reviews).routes(),
        *_OneTurnApi(server).routes(),
        *_score_routes(limits),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        lifespan=server.lifespan,
        middleware=[Middleware(_SecurityHeaders)],
        exception_handlers={HTTPException: _http_error, RequestError: _bad_request, Exception: _internal_error},
    )
    app.state.sessions = sessions  # the games being played, for tools and tests that look inside
    app.state.store = store
    return app


def _pages() -> list[Route]:
    return [
        Route("/", _page("index.html")),
        Route("/puzzles", _page("puzzles.html")),
        Route("/play", _page("play.html")),
        Route("/review", _page("review.html")),
        Route("/score", _page("score.html")),
    ]


class _Server:
    """What every handler shares: the server's limits, and its solver pool while the app runs."""

    def __init__(self, limits: Limits, pool_kind: str) -> None:
        self.limits = limits
        self.pool_kind = pool_kind
        self._pool: SolverPool | None = None

    @asynccontextmanager
    async def lifespan(self, _: Starlette) -> AsyncIterator[None]:
        self._pool = SolverPool(self.limits, self.pool_kind)
        await self._pool.warm()
        try:
            yield
        finally:
            self._pool.close()
            self._pool = None

    @property
    def pool(self) -> SolverPool:
        if self._pool is None:
            raise RuntimeError("the solver pool runs only while the app does (its lifespan)")
        return self._pool


class _OneTurnApi:
    """Positions, puzzles and one-turn solves (``web.endpoints``): cheap calls in a thread, solves
    in the solver pool."""

    def __init__(self, server: _Server) -> None:
        self.server = server
        self.limits = server.limits

    def routes(self) -> list[Route]:
        return [
            Route("/api/rules", self.rules),
            Route("/api/tiles", self.parse, methods=["POST"]),
            Route("/api/sets", self.parse, methods=["POST"]),
            Route("/api/position", self.parse, methods=["POST"]),
            Route("/api/solve", self.solver, methods=["POST"]),
            Route("/api/check", self.solver, methods=["POST"]),
            Route("/api/hint", self.solver, methods=["POST"]),
            Route("/api/puzzles", self.puzzle_list),
            Route("/api/puzzles/{puzzle_id}", self.puzzle),
        ]

    async def solver(self, request: Request) -> Response:
        endpoint = request.url.path.rsplit("/", 1)[-1]  # solve, check or hint
        _query(request)
        body = await _json_body(request, self.limits)
        return _json(await self.server.pool.run(endpoint, body, self.limits))

    async def parse(self, request: Request) -> Response:
        endpoint = request.url.path.rsplit("/", 1)[-1]  # tiles, sets or position
        query = _query(request, *(["name"] if endpoint == "position" else []))
        content_type = request.headers.get("content-type", "")
        if endpoint == "position" and not content_type.startswith("application/json"):
            data = await _body(request, self.limits)  # an uploaded file, by content
            name = query.get("name", "upload")
            return _json(await run_in_threadpool(endpoints.answer, "upload", data, name, self.limits))
        body = await _json_body(request, self.limits)
        return _json(await run_in_threadpool(endpoints.answer, endpoint, body, self.limits))

    async def rules(self, request: Request) -> Response:
        _query(request)
        return _json(endpoints.answer("rules", self.limits))

    async def puzzle_list(self, request: Request) -> Response:
        level = _query(request, "difficulty").get("difficulty")
        return _json(await run_in_threadpool(endpoints.answer, "puzzles", level))

    async def puzzle(self, request: Request) -> Response:
        puzzle_id, answer = request.path_params["puzzle_id"], _query(request, "answer").get("answer")
        if endpoints.is_generated(puzzle_id):  # made on request: solves, so in a solver process
            return _json(await self.server.pool.call(call, endpoints.puzzle, puzzle_id, answer))
        return _json(await run_in_threadpool(endpoints.answer, "puzzle", puzzle_id, answer))


def _score_routes(limits: Limits) -> list[Route]:
    """Score sheets (``web.scores``): the sheet comes with each request and goes back with it."""

    def score(action: Callable[[Any], Any]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            _query(request)
            body = await _json_body(request, limits)
            return _json(await run_in_threadpool(call, action, body))

        return endpoint

    return [
        Route("/api/score/new", score(scores.new), methods=["POST"]),
        Route("/api/score/round", score(scores.add_round), methods=["POST"]),
        Route("/api/score/sheet", score(scores.show), methods=["POST"]),
    ]


class _GameApi:
    """Games against the AI players (``web.games``): kept between requests in ``sessions``; an AI
    turn, a hint and a turn's steps are solves, in the solver pool."""

    def __init__(self, server: _Server, sessions: Sessions, kept_reviews: Reviews) -> None:
        self.server = server
        self.limits = server.limits
        self.sessions = sessions
        self.kept_reviews = kept_reviews

    def routes(self) -> list[Route]:
        return [
            Route("/api/games", self.new_game, methods=["POST"]),
            Route("/api/games/{game_id}", self.game),
            Route("/api/games/{game_id}/ai", self.ai_turn, methods=["POST"]),
            Route("/api/games/{game_id}/hint", self.game_hint, methods=["POST"]),
            Route("/api/games/{game_id}/review", self.review_game, methods=["POST"]),
            Route("/api/games/{game_id}/turns/{turn:int}/steps", self.turn_steps),
            Route("/api/games/{game_id}/rounds/{round:int}/record", self.round_record),
            Route("/api/games/{game_id}/{action}", self.game_action, methods=["POST"]),
        ]

    async def new_game(self, request: Request) -> Response:
        _query(request)
        body = await _json_body(request, self.limits)
        status, data = await run_in_threadpool(call, self.sessions.create, body)
        return _json((201 if status == 200 else status, data))

    async def game(self, request: Request) -> Response:
        key, seat = request.path_params["game_id"], _query(request, "seat").get("seat")
        return _json(await run_in_threadpool(call, self.sessions.act, key, "view", None, seat))

    async def game_action(self, request: Request) -> Response:
        key, action = request.path_params["game_id"], request.path_params["action"]
        seat = _query(request, "seat").get("seat")
        # Every action may say which turn, and edit of it, its page showed ({"round", "turn",
        # "edits"}); edit needs its commands.
        body = await _json_body(request, self.limits, optional=action != "edit")
        return _json(await run_in_threadpool(call, self.sessions.act, key, action, body, seat))

    async def ai_turn(self, request: Request) -> Response:
        """One AI turn: what it may see is taken here, its choice made in a solver process."""
        key, seat = request.path_params["game_id"], _query(request, "seat").get("seat")
        status, prepared = await run_in_threadpool(call, self.sessions.ai_view, key, seat)
        if status != 200:
            return _json((status, prepared))
        level, view, turn = prepared
        status, chosen = await self.server.pool.call(call, games.ai_choose, level, view, self.limits.time_limit)
        if status != 200:
            return _json((status, chosen))
        return _json(await run_in_threadpool(call, self.sessions.ai_move, key, turn, chosen["table"], seat))

    async def game_hint(self, request: Request) -> Response:
        key, seat = request.path_params["game_id"], _query(request, "seat").get("seat")
        body = await _json_body(request, self.limits)
        if not isinstance(body, dict) or set(body) - {"level"}:
            raise RequestError(400, 'request: expected {"level": 1, 2 or 3}')
        status, position = await run_in_threadpool(call, self.sessions.hint_position, key, seat)
        if status != 200:
            return _json((status, position))
        return _json(await self.server.pool.run("hint", {**position, "level": body.get("level", 1)}, self.limits))

    async def turn_steps(self, request: Request) -> Response:
        key, number = request.path_params["game_id"], request.path_params["turn"]
        seat = _query(request, "seat").get("seat")
        status, found = await run_in_threadpool(call, self.sessions.turn, key, number, seat)
        if status != 200:
            return _json((status, found))
        steps_call = games.steps_call(*found)
        if steps_call is None:  # a turn the timer ended
            return _json((200, {"steps": [], "tiles_moved": 0, "timed_out": True}))
        return _json(await self.server.pool.call(call, games.turn_steps, *steps_call))

    async def round_record(self, request: Request) -> Response:
        key, number = request.path_params["game_id"], request.path_params["round"]
        seat = _query(request, "seat").get("seat")
        status, text = await run_in_threadpool(call, self.sessions.record, key, number, seat)
        if status != 200:
            return _json((status, text))
        return Response(
            text,
            media_type="application/jsonl",
            headers={"Content-Disposition": f'attachment; filename="rummikub-game-round-{number}.jsonl"'},
        )

    async def review_game(self, request: Request) -> Response:
        key, seat = request.path_params["game_id"], _query(request, "seat").get("seat")
        body = await _json_body(request, self.limits)
        if not isinstance(body, dict) or set(body) - {"round"} or type(body.get("round", 1)) is not int:
            raise RequestError(400, 'request: expected {"round": N} (a finished round of this game, from 1)')
        number = body.get("round", 1)
        status, text = await run_in_threadpool(call, self.sessions.record, key, number, seat)
        if status != 200:
            return _json((status, text))
        status, made = await run_in_threadpool(call, self.kept_reviews.create, text, f"round-{number}.jsonl")
        return _json((201 if status == 200 else status, {"id": made} if status == 200 else made))


class _ReviewApi:
    """Game records reviewed turn by turn (``web.reviews``): each turn judged on request, a solve in
    the solver pool, and kept."""

    def __init__(self, server: _Server, kept_reviews: Reviews) -> None:
        self.server = server
        self.limits = server.limits
        self.kept_reviews = kept_reviews

    def routes(self) -> list[Route]:
        return [
            Route("/api/reviews", self.new_review, methods=["POST"]),
            Route("/api/reviews/{review_id}", self.review),
            Route("/api/reviews/{review_id}/turns/{turn:int}", self.review_turn),
            Route("/api/reviews/{review_id}/summary", self.review_summary),
        ]

    async def new_review(self, request: Request) -> Response:
        name = _query(request, "name").get("name", "upload")
        data = await _body(request, self.limits, self.limits.max_record_bytes)
        status, read = await run_in_threadpool(call, reviews.read, data, name, self.limits)
        if status != 200:
            return _json((status, read))
        _, text = read
        status, made = await run_in_threadpool(call, self.kept_reviews.create, text, name)
        if status != 200:
            return _json((status, made))
        status, view = await run_in_threadpool(call, self.kept_reviews.view, made)
        return _json((201 if status == 200 else status, view))

    async def review(self, request: Request) -> Response:
        key, objective = request.path_params["review_id"], _query(request, "objective").get("objective")
        return _json(await run_in_threadpool(call, self.kept_reviews.view, key, objective))

    async def review_turn(self, request: Request) -> Response:
        key, number = request.path_params["review_id"], request.path_params["turn"]
        objective = _query(request, "objective").get("objective")
        status, found = await run_in_threadpool(call, self.kept_reviews.turn, key, number, objective)
        if status != 200:
            return _json((status, found))
        record, turn, by, judged = found
        if judged is None:
            time_limit = self.limits.time_limit
            status, judged = await self.server.pool.call(call, reviews.judge, turn, record, time_limit, by)
            if status != 200:
                return _json((status, judged))
        return _json(await run_in_threadpool(call, self.kept_reviews.keep, key, number, by, judged))

    async def review_summary(self, request: Request) -> Response:
        key, objective = request.path_params["review_id"], _query(request, "objective").get("objective")
        return _json(await run_in_threadpool(call, self.kept_reviews.summary, key, objective))


class _SecurityHeaders:
    """Adds SECURITY_HEADERS to every response (plain ASGI: nothing between the app and the socket)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(SECURITY_HEADERS)
            await send(message)

        await self.app(scope, receive, with_headers if scope["type"] == "http" else send)


def _page(name: str) -> Callable[[Request], Awaitable[Response]]:
    async def page(_: Request) -> Response:
        return FileResponse(STATIC / name, media_type="text/html")

    return page


def _query(request: Request, *known: str) -> dict[str, str]:
    """The request's query parameters, each one of ``known`` and given once: a parameter misspelt
    or repeated is refused, never ignored (the answer would not be to what was asked)."""
    found: dict[str, str] = {}
    for key, value in request.query_params.multi_items():
        if key not in known:
            takes = f"parameters: {', '.join(known)}" if known else "this endpoint takes none"
            raise RequestError(400, f"unknown parameter {shown(key)} ({takes})")
        if key in found:
            raise RequestError(400, f"parameter {shown(key)} is given twice")
        found[key] = value
    return found


async def _body(request: Request, limits: Limits, cap: int | None = None) -> bytes:
    """The request body, refused as soon as it passes the cap (a huge body is never held whole)."""
    cap = cap or limits.max_body_bytes
    too_large = RequestError(413, f"request body too large (over {cap:,} bytes)")
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise too_large
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request, limits: Limits, optional: bool = False) -> Any:
    """The request's JSON; None for an empty body where it is ``optional``."""
    data = await _body(request, limits)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise RequestError(400, f"request: not UTF-8 text (bad byte at {err.start})") from None
    if not text.strip():
        if optional:
            return None
        raise RequestError(400, "request: empty body (expected a JSON object)")
    try:
        return load_json(text, "request")
    except InputError as err:
        raise RequestError(400, one_line(str(err))) from None


def _json(answer: tuple[int, Any]) -> Response:
    status, body = answer
    return JSONResponse(body, status)


async def _bad_request(_: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestError)
    return JSONResponse({"error": exc.message}, exc.status)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    # The path as the request gave it, decoded: request.url drops a decoded tab or line break.
    path = printable(str(request.scope.get("path", request.url.path))[:80])  # a decoded %01 stays on the line
    if exc.status_code == 404:
        message = f"no such page or endpoint: {path}"
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {path}"
    else:
        message = str(exc.detail)
    return JSONResponse({"error": message}, exc.status_code, headers=exc.headers)


async def _internal_error(_: Request, exc: Exception) -> Response:
    return JSONResponse({"error": one_line(f"internal error (please report): {type(exc).__name__}: {exc}")}, 500)
