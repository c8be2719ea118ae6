"""Pictures of positions and answers as SVG: tiles in their colours, something to print.

Rack tiles played are highlighted (a yellow face), table tiles that changed set are marked (a
dashed outline), and for a checked answer the sets named by violations are framed in red with the
messages listed underneath. Every tile is one ``<g class="tile">`` holding one ``<rect>``.
"""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from collections.abc import Sequence
from xml.sax.saxutils import escape

from solver.check import CheckReport
from solver.file_io import write_over_own
from solver.position import Position
from solver.solution import PlacedSet, SetChange, Solution
from solver.tiles import Tile
from solver.wording import count

TILE_W, TILE_H, GAP, SET_GAP, MARGIN, ROW = 34, 46, 4, 18, 16, 62
MESSAGE_WIDTH = 90  # characters on a line of a violation's message
INK = {
    "K": "#1a1a1a",
    "B": "#1f4fd1",
    "R": "#c8102e",
    "O": "#e07b00",
    "G": "#1e7a34",
    "P": "#6a2c91",
    "W": "#7a7a7a",
    "C": "#008b8b",
    "J": "#b0006e",
}


class _Canvas:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.width = 0
        self.y = MARGIN

    def text(self, x: float, y: float, words: str, size: int = 14, fill: str = "#222") -> None:
        self.parts.append(
            f'<text x="{x}" y="{y}" font-family="sans-serif" font-size="{size}" fill="{fill}">{escape(words)}</text>'
        )
        self.width = max(self.width, int(x + 7.5 * len(words)))

    def tile(self, x: float, y: float, t: Tile, from_rack: bool = False, moved: bool = False) -> None:
        face = "#fff3b0" if from_rack else "#fbfaf5"
        stroke = "#b58900" if from_rack else "#555"
        dash = ' stroke-dasharray="4 3"' if moved else ""
        label = "J" if t.is_joker else str(t.number)
        kind = "rack" if from_rack else "moved" if moved else "table"
        self.parts.append(
            f'<g class="tile {kind}"><title>{t}</title>'
            f'<rect x="{x}" y="{y}" width="{TILE_W}" height="{TILE_H}" rx="5" fill="{face}" '
            f'stroke="{stroke}" stroke-width="{2 if from_rack or moved else 1}"{dash}/>'
            f'<text x="{x + TILE_W / 2}" y="{y + 30}" text-anchor="middle" font-family="sans-serif" '
            f'font-weight="bold" font-size="18" fill="{INK[t.letter]}">{label}</text></g>'
        )
        self.width = max(self.width, int(x + TILE_W))

    def frame(self, x: float, y: float, w: float, colour: str) -> None:
        self.parts.append(
            f'<rect class="violation" x="{x - 4}" y="{y - 4}" width="{w + 8}" height="{TILE_H + 8}" '
            f'rx="7" fill="none" stroke="{colour}" stroke-width="3"/>'
        )

    def row_of_sets(
        self,
        sets: Sequence[Sequence[Tile]],
        marks: Sequence[tuple[Sequence[bool], Sequence[bool]]] | None = None,
        framed: set[int] | None = None,
        width: int = 900,
    ) -> None:
        x, y = MARGIN, self.y
        for i, tiles in enumerate(sets):
            w = len(tiles) * (TILE_W + GAP) - GAP
            if x > MARGIN and x + w > width:
                x, y = MARGIN, y + ROW
            if framed and i in framed:
                self.frame(x, y, w, "#d00000")
            for j, t in enumerate(tiles):
                rack, moved = (marks[i][0][j], marks[i][1][j]) if marks else (False, False)
                self.tile(x + j * (TILE_W + GAP), y, t, rack, moved)
            x += w + SET_GAP
        self.y = y + ROW

    def svg(self) -> str:
        body = "\n".join(self.parts)
        width, height = self.width + MARGIN, self.y + MARGIN
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">\n<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n'
        )


def _marks(placed: Sequence[PlacedSet]) -> list[tuple[Sequence[bool], Sequence[bool]]]:
    """Per set: which tiles came from the rack, and which table tiles changed set."""
    out: list[tuple[Sequence[bool], Sequence[bool]]] = []
    for s in placed:
        moved = [s.change is SetChange.REBUILT and not r for r in s.from_rack]
        out.append((s.from_rack, moved))
    return out


def _draw_position(canvas: _Canvas, position: Position, title: str, table_label: str) -> None:
    canvas.text(MARGIN, canvas.y + 14, title or position.title or "Rummikub position", 18)
    canvas.y += 30
    canvas.text(MARGIN, canvas.y + 12, f"Rack ({count(len(position.rack), 'tile')})")
    canvas.y += 20
    canvas.row_of_sets([position.rack])
    canvas.text(MARGIN, canvas.y + 12, f"{table_label} ({count(len(position.table), 'set')})")
    canvas.y += 20
    if position.table:
        canvas.row_of_sets(position.table)


def position_svg(position: Position, title: str = "") -> str:
    """The position only (rack and table): a puzzle's picture, which must not give the answer away."""
    canvas = _Canvas()
    _draw_position(canvas, position, title, "Table")
    if not position.opened:
        canvas.text(MARGIN, canvas.y + 12, "Not opened yet: this turn is the initial meld")
        canvas.y += 20
    return canvas.svg()


def solution_svg(solution: Solution, title: str = "") -> str:
    """The position (rack and table before) and the answer (table after, rack tiles highlighted)."""
    canvas = _Canvas()
    _draw_position(canvas, solution.position, title, "Table before")
    n = solution.tiles_played
    summary = (
        "No move: draw a tile"
        if not n
        else f"Table after playing {count(n, 'tile')} ({count(solution.points_played, 'point')})"
    )
    canvas.text(MARGIN, canvas.y + 12, summary)
    canvas.y += 20
    canvas.row_of_sets([s.tiles for s in solution.table], _marks(solution.table))
    return canvas.svg()


def answer_svg(report: CheckReport) -> str:
    """A checked answer: the proposed table with the sets named by violations framed in red."""
    canvas = _Canvas()
    position = report.position
    canvas.text(MARGIN, canvas.y + 14, position.title or "Checked answer", 18)
    canvas.y += 30
    canvas.text(MARGIN, canvas.y + 12, f"Rack ({count(len(position.rack), 'tile')})")
    canvas.y += 20
    canvas.row_of_sets([position.rack])
    canvas.text(MARGIN, canvas.y + 12, "Proposed table")
    canvas.y += 20
    bad = {i for sets in report.violation_sets() for i in sets}
    played = Counter(report.played)
    marks: list[tuple[Sequence[bool], Sequence[bool]]] = []
    for s in report.answer:  # highlight the tiles the answer lays from the rack
        flags = []
        for t in s:
            flags.append(played[t] > 0)
            played[t] -= 1
        marks.append((flags, [False] * len(s)))
    if report.answer:
        canvas.row_of_sets(report.answer, marks, framed=bad)
    for v in report.violations:
        # Wrapped as a page would: one long message would make the picture as wide as itself.
        for k, line in enumerate(textwrap.wrap(v.message, MESSAGE_WIDTH)):
            canvas.text(MARGIN + (0 if k == 0 else 14), canvas.y + 12, ("✗ " if k == 0 else "") + line, 13, "#b00000")
            canvas.y += 18
    if report.legal:
        verdict = {True: "optimal", False: "legal, not optimal", None: "legal, not proven optimal"}[report.optimal]
        said = f"{verdict}: {count(report.tiles_played, 'tile')}, {count(report.points_played, 'point')}"
    elif report.best.tiles_played:
        said = f"illegal: it plays nothing; the best legal move plays {count(report.best.tiles_played, 'tile')}"
    else:
        said = "illegal: it plays nothing; no legal move plays a tile"
    canvas.text(
        MARGIN,
        canvas.y + 12,
        said,
        13,
        "#1e7a34" if report.optimal else "#b00000",
    )
    canvas.y += 18
    return canvas.svg()


def write_svg(path: str, picture: str) -> None:
    """Write the picture whole; a file already there is replaced only if it is a picture too, or
    empty (``--svg`` given the position file itself must not destroy it)."""
    write_over_own(path, picture, "picture", "an SVG picture", _SVG_START, "--svg")


_SVG_START = re.compile(rb"(\xef\xbb\xbf)?\s*(<\?xml[^>]*\?>\s*)?(<!--.*?-->\s*|<!DOCTYPE[^>]*>\s*)*<svg\b", re.S | re.I)
