// A game record reviewed turn by turn: upload one (or open a game just played, ?id=...), then
// step through the turns on the board, each with `rummikub analyze`'s label, the move played and
// the better move side by side; a summary per player once every turn is judged. Turns are judged
// one request at a time (the server solves each in its worker processes), shown as they come.

import { get, upload } from "./api.js";
import { $, el, plural, say, unreadParts } from "./dom.js";
import { setColours, tileElement } from "./tiles.js";
import { setsView } from "./views.js";

let review = null; // GET /api/reviews/{id}
const judged = new Map(); // turn number -> GET /api/reviews/{id}/turns/{n}?objective=...
let at = 1;
let objective = "tiles"; // what the verdicts count, as `analyze --objective`
let judging = 0; // bumped when the objective changes: a judging loop of the old one stops

function tiles(list, played = []) {
  const row = el("span", "tiles");
  list.forEach((t, i) => row.append(tileElement(t, { played: Boolean(played[i]) })));
  if (!list.length) row.append("nothing");
  return row;
}

function name(player) {
  return review.players[player - 1].name;
}

function labelBadge(label) {
  const badge = el("span", "label", label ?? "…");
  if (label) badge.dataset.label = label;
  return badge;
}

/** Review `id`; `problems`: what its link held that is not read (said with a turn past the record's end). */
async function open(id, problems = []) {
  review = await get(`/api/reviews/${encodeURIComponent(id)}`);
  judged.clear();
  const about = el("p");
  const result = review.result;
  const players = review.players.map((p) => `${p.name} (${p.kind === "human" ? "person" : "AI"})`).join(", ");
  const end = result
    ? result.winner
      ? `${name(result.winner)} won (${result.reason === "rack_empty" ? "emptied the rack" : "lowest rack"}).`
      : "A tie."
    : "The round was not finished.";
  about.textContent = `${review.name}: ${players}; ${plural(review.turns.length, "turn")}; seed ${review.seed}. ${end}`;
  $("about").replaceChildren(about);
  if (!review.turns.length) {
    // Quit before the first move: no turn to show, nothing to judge, no accuracy to speak of.
    judging += 1; // a review opened before stops judging
    delete document.body.dataset.judged;
    $("review").hidden = true;
    $("about").append(el("p", "note", "This record has no turns: there is nothing to review."));
    return;
  }
  $("review").hidden = false;
  const given = new URLSearchParams(location.search).get("turn") ?? "";
  const asked = /^[1-9][0-9]*$/.test(given) ? Number(given) : 1; // anything else is named by linkProblems
  at = Math.min(asked, review.turns.length);
  if (asked > at) {
    say(`in the link: ${[...problems, `turn=${asked}: the record has ${plural(review.turns.length, "turn")}`].join("; ")}`);
  }
  await rejudge();
}

async function rejudge() {
  judged.clear();
  judging += 1;
  delete document.body.dataset.judged;
  $("summary").replaceChildren(el("p", null, "Once every turn is judged."));
  listTurns();
  if (review.turns.length) await showTurn(at);
  judgeAll(judging);
}

function query() {
  return objective === "tiles" ? "" : `?objective=${objective}`;
}

function listTurns() {
  $("turns").replaceChildren(
    ...review.turns.map((turn) => {
      const item = el("li");
      const button = el("button");
      button.type = "button";
      button.dataset.turn = String(turn.turn);
      const found = judged.get(turn.turn);
      const did = turn.played.length ? `laid ${turn.played.length}` : turn.penalty ? "penalty" : turn.drew ? "drew" : "passed";
      button.append(el("span", null, `${turn.turn}. ${name(turn.player)} ${did}`));
      button.append(labelBadge(found?.label));
      if (turn.turn === at) button.setAttribute("aria-current", "true");
      button.addEventListener("click", () => showTurn(turn.turn));
      item.append(button);
      return item;
    }),
  );
  const count = judged.size;
  $("progress").max = review.turns.length || 1;
  $("progress").value = count;
  $("progress-text").textContent = `${count} of ${review.turns.length} judged`;
}

async function judge(number) {
  if (!judged.has(number)) {
    const by = objective;
    const found = await get(`/api/reviews/${encodeURIComponent(review.id)}/turns/${number}${query()}`);
    if (by !== objective) return null; // judged by what the page no longer shows
    judged.set(number, found);
    listTurns();
  }
  return judged.get(number);
}

async function judgeAll(round) {
  try {
    for (const turn of review.turns) {
      if (round !== judging) return;
      await judge(turn.turn);
    }
    const summary = await get(`/api/reviews/${encodeURIComponent(review.id)}/summary${query()}`);
    if (round !== judging) return;
    showSummary(summary.summary);
    document.body.dataset.judged = "true";
  } catch (error) {
    say(error.message);
  }
}

function showSummary(rows) {
  const table = el("table", "summary");
  const head = el("tr");
  const unit = objective === "tiles" ? "Tiles" : "Points";
  // Accuracy first after the player. On a phone the headings are short (the labels' own marks,
  // as in the list of turns), the long words kept for screen readers and as each one's title.
  const headings = [
    ["Player", "Player"], ["Accuracy", "Acc."], [`${unit} played`, unit], ["Of the optimum", "Opt."], ["Turns", "Turns"],
    ["Best", "✓"], ["Inaccuracies", "?!"], ["Mistakes", "?"], ["Blunders", "??"], ["Illegal", "✗"],
  ];
  for (const [words, short] of headings) {
    const cell = el("th");
    cell.title = words;
    const brief = el("span", "short", short);
    brief.setAttribute("aria-hidden", "true");
    cell.append(el("span", "long", words), brief);
    head.append(cell);
  }
  table.append(head);
  for (const s of rows) {
    const row = el("tr");
    row.dataset.player = String(s.player);
    const [done, best] = objective === "tiles" ? [s.tiles_played, s.optimal_tiles] : [s.points_played, s.optimal_points];
    for (const value of [s.name, s.accuracy === null ? "—" : `${s.accuracy.toFixed(1)}%`, done, best, s.turns, s.best, s.inaccuracy, s.mistake, s.blunder, s.illegal]) {
      row.append(el("td", null, String(value)));
    }
    table.append(row);
  }
  $("summary").replaceChildren(table);
}

async function showTurn(number) {
  at = number;
  const turn = review.turns[number - 1];
  const by = objective === "tiles" ? "" : `&objective=${objective}`;
  history.replaceState(null, "", `/review?id=${encodeURIComponent(review.id)}&turn=${number}${by}`);
  $("turn-title").textContent = `Turn ${number} of ${review.turns.length}: ${name(turn.player)}${turn.opened ? "" : " (not opened yet)"}`;
  $("previous").disabled = number === 1;
  $("next").disabled = number === review.turns.length;
  $("turn-rack").replaceChildren(tiles(turn.rack));
  $("turn-table").replaceChildren(turn.table.length ? setsView(turn.table) : el("p", "empty", "The table is empty."));
  $("verdict").replaceChildren(el("span", null, "Judging…"));
  $("played").replaceChildren(el("h3", null, "Played"));
  $("better").replaceChildren();
  listTurns();
  let found;
  try {
    found = await judge(number);
  } catch (error) {
    say(error.message);
    return;
  }
  if (at !== number || found === null) return; // the person moved on meanwhile
  showVerdict(turn, found);
}

function showVerdict(turn, found) {
  const verdict = $("verdict");
  verdict.replaceChildren(labelBadge(found.label));
  verdict.dataset.label = found.label;
  const words =
    found.label === "illegal"
      ? ` The move broke the rules: ${found.violations.map((v) => v.message).join("; ")}.`
      : found.label === "best"
        ? found.optimal_tiles
          ? ` The best move: ${plural(found.played_tiles, "tile")} laid.`
          : " Nothing could be laid: drawing was right."
        : objective === "tiles"
          ? ` ${plural(found.tiles_missed, "tile")} short of the best move (${found.played_tiles} laid, ${found.optimal_tiles} possible)${found.reason ? `: a ${found.reason}` : ""}.`
          : ` ${plural(found.points_missed, "point")} short of the best move (${found.played_points} laid, ${found.optimal_points} possible)${found.reason ? `: a ${found.reason}` : ""}.`;
  verdict.append(words);
  if (found.status === "time_limit") verdict.append(" (The search hit the server's time limit: the better move is the best found.)");

  const played = $("played");
  played.replaceChildren(el("h3", null, "Played"));
  if (turn.played.length) {
    played.append(el("p", null, `${plural(turn.played.length, "tile")} laid: `), tiles(turn.played, turn.played.map(() => true)));
    played.append(setsView(found.table_after, { played: found.from_rack }));
  } else if (turn.penalty) {
    played.append(el("p", null, `Out of time: ${plural(turn.penalty.length, "penalty tile")} drawn.`));
  } else {
    played.append(el("p", null, turn.drew ? `Drew ${turn.drew}.` : "Passed (the pool was empty)."));
  }
  const better = $("better");
  if (found.better) {
    better.append(el("h3", null, "Better"));
    better.append(el("p", null, `${plural(found.better.played.length, "tile")} to lay: `), tiles(found.better.played, found.better.played.map(() => true)));
    better.append(setsView(found.better.table, { played: found.better.from_rack, changes: found.better.table_changes }));
  } else {
    better.append(el("h3", null, "Better"), el("p", null, "Nothing better: this was the best move."));
  }
}

async function uploaded(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  say("");
  try {
    const made = await upload("/api/reviews", file);
    history.pushState(null, "", `/review?id=${encodeURIComponent(made.id)}`);
    await open(made.id);
  } catch (error) {
    say(error.message);
  }
}

/** What in a review's link is not read (the review opens with the rest): a part dropped in
 * silence would show another turn or objective than the one the link's sender meant. */
function linkProblems(params) {
  return unreadParts(params, ["id", "turn", "objective"], "a review's link", (key, value) => {
    if (key === "objective" && !["tiles", "points"].includes(value)) return "expected tiles or points";
    if (key === "turn" && !/^[1-9][0-9]*$/.test(value)) return "expected a turn number from 1";
    return null;
  });
}

async function main() {
  const info = await get("/api/rules");
  setColours(info.colours);
  $("upload").addEventListener("change", uploaded);
  objective = new URLSearchParams(location.search).get("objective") === "points" ? "points" : "tiles";
  $("objective").value = objective;
  $("objective").addEventListener("change", () => {
    objective = $("objective").value;
    if (review) rejudge().catch((error) => say(error.message));
  });
  $("previous").addEventListener("click", () => at > 1 && showTurn(at - 1));
  $("next").addEventListener("click", () => review && at < review.turns.length && showTurn(at + 1));
  document.addEventListener("keydown", (event) => {
    if (!review || event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowLeft" && at > 1) showTurn(at - 1);
    else if (event.key === "ArrowRight" && at < review.turns.length) showTurn(at + 1);
  });
  const id = new URLSearchParams(location.search).get("id");
  const problems = linkProblems(new URLSearchParams(location.search));
  if (problems.length) say(`in the link: ${problems.join("; ")}`);
  if (id) {
    try {
      await open(id, problems);
    } catch (error) {
      // The link's other problems stay said beside it (as /play and /puzzles say them).
      say(problems.length ? `${error.message}; in the link: ${problems.join("; ")}` : error.message);
    }
  }
  document.body.dataset.ready = "true";
}

main().catch((error) => say(error.message));
