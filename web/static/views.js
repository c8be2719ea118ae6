// Read-only pictures of the server's answers: the table after the best move (played tiles
// highlighted, each set marked unchanged / extended / new / rebuilt), the steps one at a time
// with the table as it stands after each, and hints in words.

import { el, plural } from "./dom.js";
import { tileElement } from "./tiles.js";

/** Sets as a list; `options.played[i][j]` highlights a tile, `options.changes[i]` labels a set,
 * `options.changed` (indices) and `options.moving` (tiles) show what a step touched (the badge
 * says `options.changedLabel`, by default "changed in this step"). */
export function setsView(sets, options = {}) {
  const list = el("ol", "sets");
  sets.forEach((tiles, i) => {
    const item = el("li", "set");
    item.dataset.set = String(i);
    const row = el("div", "tiles");
    const moving = [...(options.moving ?? [])];
    const touched = options.changed?.includes(i);
    tiles.forEach((t, j) => {
      const tile = tileElement(t, { played: Boolean(options.played?.[i]?.[j]) });
      const k = touched ? moving.indexOf(t) : -1;
      if (k >= 0) {
        tile.classList.add("moving");
        moving.splice(k, 1);
      }
      row.append(tile);
    });
    item.append(row);
    const change = options.changes?.[i];
    if (change) {
      item.classList.add(`change-${change}`);
      item.append(el("span", "badge", change));
    }
    const said = options.changedLabel ?? "changed in this step";
    if (touched) {
      item.classList.add("touched");
      item.append(el("span", "badge", said));
    }
    item.setAttribute("aria-label", `set ${i + 1}${change ? `, ${change}` : ""}${touched ? `, ${said}` : ""}`);
    list.append(item);
  });
  return list;
}

/** A headline for a solve answer ("Best move: play 3 tiles (19 points)"). */
export function headline(answer) {
  const n = answer.tiles_played;
  if (answer.status === "no_move") return "No move: draw a tile.";
  const move = `play ${plural(n, "tile")} (${answer.points_played} points)`;
  if (answer.status === "time_limit") {
    return n ? `Time limit reached; the best found, not proven optimal: ${move}.` : "Time limit reached: no move found.";
  }
  return `Best move${answer.initial_meld ? " (initial meld)" : ""}: ${move}.`;
}

/** The answer of POST /api/solve: headline, table after the move, rack left, then the steps. */
export function showAnswer(container, answer, tableBefore) {
  const parts = [el("p", "headline", headline(answer))];
  if (answer.note) parts.push(el("p", "note", `Note: ${answer.note}.`));
  if (answer.played.length) {
    const played = el("p", "played");
    played.append("Tiles to play: ");
    answer.played.forEach((t) => played.append(tileElement(t, { played: true })));
    parts.push(played);
  }
  const after = el("section", "after");
  after.setAttribute("aria-label", "Table after the move");
  after.append(el("h3", null, `Table after the move (${plural(answer.table.length, "set")})`));
  after.append(setsView(answer.table, { played: answer.from_rack, changes: answer.table_changes }));
  parts.push(after);
  const left = el("p", "rack-left");
  left.append(`Left on your rack (${answer.rack.length}): `);
  if (answer.rack.length) answer.rack.forEach((t) => left.append(tileElement(t)));
  else left.append("nothing");
  parts.push(left);
  if (answer.steps?.length) parts.push(stepsView(answer.steps, tableBefore, answer.tiles_moved));
  container.replaceChildren(...parts);
}

/** The steps one at a time: Previous / Next, the step in words, the table as it stands. */
export function stepsView(steps, tableBefore, tilesMoved) {
  const box = el("section", "steps");
  box.setAttribute("aria-label", "Steps");
  const title = el("h3", null, `Steps (${plural(steps.length, "step")}, ${plural(tilesMoved, "table tile")} moved)`);
  const list = el("ol", "step-list");
  steps.forEach((s) => list.append(el("li", null, s.text)));
  const nav = el("div", "step-nav");
  const previous = el("button", null, "◀ Previous");
  const next = el("button", null, "Next ▶");
  previous.type = next.type = "button";
  previous.dataset.step = "previous";
  next.dataset.step = "next";
  const where = el("p", "step-now");
  where.setAttribute("aria-live", "polite");
  const board = el("div", "step-board");
  nav.append(previous, where, next);
  let at = 0; // 0: the table before the move; k: after step k
  const show = () => {
    previous.disabled = at === 0;
    next.disabled = at === steps.length;
    list.querySelectorAll("li").forEach((li, i) => li.classList.toggle("current", i === at - 1));
    if (at === 0) {
      where.textContent = `Before the move (step 0 of ${steps.length})`;
      board.replaceChildren(setsView(tableBefore));
      return;
    }
    const step = steps[at - 1];
    where.textContent = `Step ${at} of ${steps.length}: ${step.text}`;
    const view = [setsView(step.after.table, { changed: step.after.changed, moving: step.tiles })];
    for (const aside of step.after.aside) {
      const kept = el("p", "aside", `Put aside for ${aside.for}: `);
      aside.tiles.forEach((t) => kept.append(tileElement(t)));
      view.push(kept);
    }
    board.replaceChildren(...view);
  };
  previous.addEventListener("click", () => {
    at = Math.max(0, at - 1);
    show();
  });
  next.addEventListener("click", () => {
    at = Math.min(steps.length, at + 1);
    show();
  });
  show();
  box.append(title, list, nav, board);
  return box;
}

/** A hint of POST /api/hint in words. */
/** Show a hint below the ones before it and move the hint button on to the next level (there is
 * none after level 3, nor when there is no move to hint at). `focused`: the button had the focus
 * when pressed (a page that disabled it during the request says so). */
export function showHint(hints, button, hint, focused = document.activeElement === button) {
  const box = hintView(hint);
  hints.append(box);
  hints.hidden = false;
  const more = hint.level < 3 && hint.tiles > 0;
  button.textContent = more ? `Hint ${hint.level + 1}` : "No more hints";
  button.disabled = !more;
  if (focused && !more) {
    // A disabled button loses the focus: it goes on to the hint just shown, not to the page's start.
    box.tabIndex = -1;
    box.focus();
  }
}

function hintView(hint) {
  const box = el("div", "hint");
  box.dataset.level = String(hint.level);
  const unproven = hint.status === "time_limit"; // the server's time limit stopped the search
  if (!hint.tiles) {
    box.append(el("p", null, unproven ? "The time limit ran out before a move was found: no hint." : "No move this turn: draw a tile."));
    return box;
  }
  const atLeast = unproven ? "at least " : "";
  if (hint.level === 1) box.append(el("p", null, `Hint 1: you can play ${atLeast}${plural(hint.tiles, "tile")} (${hint.points} points).`));
  if (hint.level === 2) {
    const tiles = el("p", null, "Hint 2: use your ");
    hint.rack_tiles.forEach((t) => tiles.append(tileElement(t, { played: true })));
    box.append(tiles);
    box.append(
      el("p", null, hint.table_sets.length ? `Table sets involved: ${hint.table_sets.join("; ")}.` : "No table set needs to change."),
    );
  }
  if (hint.level === 3) {
    box.append(el("p", null, "Hint 3: the steps"));
    const list = el("ol", "step-list");
    hint.steps.forEach((s) => list.append(el("li", null, s.text)));
    box.append(list);
  }
  return box;
}
