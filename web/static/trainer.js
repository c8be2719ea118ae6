// The puzzle trainer: the library by level with each puzzle marked solved or not (kept in this
// browser, exportable), a puzzle to solve by moving tiles, "Check" (the verdict of
// `rummikub check`), hints 1-3, then the answer with its steps. New puzzles of a chosen level
// come from the generator: the address names one as `?id=gen-LEVEL-SEED` (the same seed, the
// same puzzle, as `rummikub puzzles generate` makes it).

import { ApiError, get, post } from "./api.js";
import { Board } from "./board.js";
import { $, plural, saveAs, say, unreadParts } from "./dom.js";
import { setColours } from "./tiles.js";
import { showAnswer, showHint } from "./views.js";

const STORE = "rummikub.solved"; // puzzle id -> when it was first solved (ISO date)
const FORMAT = "rummikub-puzzle-progress";
let puzzles = []; // GET /api/puzzles
let puzzle = null; // GET /api/puzzles/{id}
let board;
let hintLevel = 0;

// ---------------------------------------------------------------- progress, kept in the browser

function solved() {
  try {
    const data = JSON.parse(localStorage.getItem(STORE) ?? "{}");
    return data && typeof data === "object" && !Array.isArray(data) ? data : {};
  } catch {
    return {};
  }
}

function markSolved(id) {
  const all = solved();
  if (!all[id]) {
    all[id] = new Date().toISOString();
    localStorage.setItem(STORE, JSON.stringify(all));
  }
}

function exportProgress() {
  saveAs(JSON.stringify({ format: FORMAT, version: 1, solved: solved() }, null, 2), "rummikub-progress.json");
}

async function importProgress(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  try {
    const data = JSON.parse(await file.text());
    if (data?.format !== FORMAT || typeof data.solved !== "object" || data.solved === null) {
      throw new Error(`${file.name} is not a progress file exported here`);
    }
    const all = { ...data.solved, ...solved() };
    localStorage.setItem(STORE, JSON.stringify(all));
    listPuzzles();
    say(`Imported ${file.name}: ${plural(Object.keys(data.solved).length, "puzzle")} solved there.`, "info");
  } catch (error) {
    say(error instanceof SyntaxError ? `${file.name} is not JSON` : error.message);
  }
}

// ---------------------------------------------------------------- the library

function listPuzzles() {
  const done = solved();
  const count = puzzles.filter((p) => done[p.id]).length;
  const made = Object.keys(done).filter(generated).length;
  $("progress").textContent =
    `${count} of ${puzzles.length} solved` + (made ? `, and ${plural(made, "generated puzzle")}.` : ".");
  const levels = [];
  for (let level = 1; level <= 5; level++) {
    const here = puzzles.filter((p) => p.difficulty === level);
    if (!here.length) continue;
    const box = document.createElement("details");
    box.open = puzzle ? puzzle.difficulty === level : level === 1;
    const summary = document.createElement("summary");
    summary.textContent = `Level ${level} (${here.filter((p) => done[p.id]).length}/${here.length} solved)`;
    const list = document.createElement("ol");
    for (const p of here) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = `/puzzles?id=${encodeURIComponent(p.id)}`;
      link.dataset.puzzle = p.id;
      link.textContent = p.title || p.id;
      if (puzzle?.id === p.id) link.setAttribute("aria-current", "page");
      if (done[p.id]) {
        const mark = document.createElement("span");
        mark.className = "solved-mark";
        mark.textContent = " ✓";
        mark.setAttribute("aria-label", "solved");
        link.dataset.solved = "true";
        link.append(mark);
      }
      item.append(link);
      list.append(item);
    }
    box.append(summary, list);
    levels.push(box);
  }
  $("levels").replaceChildren(...levels);
  if (puzzle && generated(puzzle.id)) {
    // After a generated puzzle, another of its level.
    $("next").textContent = `Another level ${puzzle.difficulty} puzzle`;
    $("next").href = `/puzzles?id=${newPuzzleId(puzzle.difficulty)}`;
    $("next").onclick = () => sessionStorage.setItem("rummikub.made", "5"); // a fresh seed, as Make one
    $("next").hidden = false;
    return;
  }
  // The next unsolved puzzle in the list's order (level by level) after this one, back to the
  // list's start only past its end.
  const order = [1, 2, 3, 4, 5].flatMap((level) => puzzles.filter((p) => p.difficulty === level));
  const at = order.findIndex((p) => p.id === puzzle?.id);
  const next = [...order.slice(at + 1), ...order.slice(0, at + 1)].find((p) => !done[p.id] && p.id !== puzzle?.id);
  $("next").hidden = !next;
  $("next").onclick = null;
  if (next) $("next").href = `/puzzles?id=${encodeURIComponent(next.id)}`;
}

// ---------------------------------------------------------------- generated puzzles

function generated(id) {
  return /^gen-[1-5]-/.test(id) && !puzzles.some((p) => p.id === id);
}

/** The id of a puzzle the server will generate: a level and a fresh random seed. */
function newPuzzleId(level) {
  const seed = crypto.getRandomValues(new Uint32Array(1))[0] % 1000000;
  return `gen-${level}-${seed}`;
}

function generate(event) {
  event.preventDefault();
  sessionStorage.setItem("rummikub.made", "5"); // seeds left to try, should one make no puzzle
  location.href = `/puzzles?id=${newPuzzleId($("generate-level").value)}`;
}

/** A puzzle "Make one" asked for: a seed that makes none at the level is passed over for another
 * (the server tries 400 deals from each; a rare seed still comes up empty). */
async function openMade(id) {
  let tries = Number(sessionStorage.getItem("rummikub.made") ?? "0");
  sessionStorage.removeItem("rummikub.made");
  for (;;) {
    try {
      return await openPuzzle(id);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 404 || tries-- <= 1) throw error;
      id = newPuzzleId(id.split("-")[1]);
      history.replaceState(null, "", `/puzzles?id=${id}`);
    }
  }
}

// ---------------------------------------------------------------- one puzzle

async function openPuzzle(id) {
  if (generated(id)) say("Making the puzzle…", "info");
  puzzle = await get(`/api/puzzles/${encodeURIComponent(id)}`);
  say("");
  document.title = `${puzzle.title} · Rummikub puzzle trainer`;
  $("puzzle-title").textContent = puzzle.title || puzzle.id;
  const facts = [`Level ${puzzle.difficulty}.`];
  if (puzzle.initial_meld) facts.push(`You have not opened yet: this turn is your initial meld (${puzzle.rules["meld-threshold"]} points).`);
  const special = Object.entries(puzzle.rules).filter(([key, value]) => rulesInfo.defaults[key] !== value);
  if (special.length) facts.push(`Rules: ${special.map(([k, v]) => `${k}=${v}`).join(", ")}.`);
  facts.push("Play as many tiles from your rack as you can: move them onto the table, rearranging it as you like.");
  $("puzzle-info").textContent = facts.join(" ");
  $("workspace").hidden = false;
  board.load(puzzle.rack, puzzle.table);
  fresh();
}

/** The board changed: earlier verdicts and answers are stale. */
function fresh() {
  $("verdict").replaceChildren();
  say("");
}

function verdictView(report) {
  const box = document.createElement("div");
  box.className = "verdict";
  const words = document.createElement("p");
  if (report.optimal) {
    box.classList.add("optimal");
    words.textContent =
      report.tiles_played === 0
        ? "Optimal: nothing can be played here, so drawing a tile is right."
        : `Optimal! You play ${plural(report.tiles_played, "tile")} (${report.points_played} points), the most there is.`;
  } else if (report.legal && report.optimal === null) {
    // The server's time limit stopped the search: the best move found is all that is known.
    box.classList.add("short");
    words.textContent = `Legal, and as good as the best move found in the server's time limit (${plural(report.optimal_tiles, "tile")}), but not proven optimal.`;
  } else if (report.legal) {
    box.classList.add("short");
    const short = report.optimal_tiles - report.tiles_played;
    words.textContent = `Legal, but ${plural(short, "tile")} short: you play ${report.tiles_played}, the best move plays ${report.optimal_tiles}.`;
  } else {
    box.classList.add("illegal");
    words.textContent = `Not legal (${plural(report.violations.length, "problem")}):`;
  }
  box.dataset.verdict = report.optimal ? "optimal" : report.optimal === null ? "unproven" : report.legal ? "short" : "illegal";
  box.append(words);
  if (!report.legal) {
    const list = document.createElement("ul");
    for (const v of report.violations) {
      const item = document.createElement("li");
      item.textContent = v.message;
      list.append(item);
    }
    box.append(list);
  }
  return box;
}

async function check() {
  fresh();
  try {
    const report = await post("/api/check", { puzzle: puzzle.id, answer: board.table() });
    $("verdict").replaceChildren(verdictView(report));
    // The offending sets marked on the board, each with its reasons in words.
    const marks = new Map();
    report.violations.forEach((v) => v.sets.forEach((i) => marks.set(i, [...(marks.get(i) ?? []), v.message])));
    board.mark(marks);
    if (report.optimal) {
      markSolved(puzzle.id);
      listPuzzles();
    }
  } catch (error) {
    say(error.message);
  }
}

async function nextHint() {
  const level = hintLevel + 1;
  try {
    const hint = await post("/api/hint", { puzzle: puzzle.id, level });
    hintLevel = level;
    showHint($("hints"), $("hint"), hint);
  } catch (error) {
    say(error.message);
  }
}

async function showTheAnswer() {
  try {
    const answer = await post("/api/solve", { puzzle: puzzle.id, steps: true });
    showAnswer($("answer"), answer, puzzle.table);
    $("show").disabled = true;
  } catch (error) {
    say(error.message);
  }
}

let rulesInfo;

async function main() {
  const [info, list] = await Promise.all([get("/api/rules"), get("/api/puzzles")]);
  rulesInfo = info;
  setColours(info.colours);
  puzzles = list;
  board = new Board($("board"), { mode: "answer", rackTitle: "Your rack", onChange: fresh, onError: say });
  $("undo").addEventListener("click", () => board.undo());
  $("redo").addEventListener("click", () => board.redo());
  $("reset").addEventListener("click", () => board.reset());
  $("check").addEventListener("click", check);
  $("hint").addEventListener("click", nextHint);
  $("show").addEventListener("click", showTheAnswer);
  $("export").addEventListener("click", exportProgress);
  $("import").addEventListener("change", importProgress);
  $("generator").addEventListener("submit", generate);
  board.listenForUndoKeys();
  const params = new URLSearchParams(location.search);
  const unread = unreadParts(params, ["id"], "a puzzle's link");
  let said = unread.length ? `in the link: ${unread.join("; ")}` : "";
  const id = params.get("id");
  if (id) {
    if (generated(id)) $("generate-level").value = id.split("-")[1];
    try {
      await openMade(id);
    } catch (error) {
      // The server's words name the API (for a program): a person picks from the list instead.
      const unknown = error instanceof ApiError && error.status === 404 && !id.startsWith("gen-");
      const link = unread.length ? ` In the link: ${unread.join("; ")}.` : "";
      said = `${unknown ? `No puzzle '${id.slice(0, 40)}': pick one from the list.` : error.message}${link}`;
    }
  }
  if (said) say(said); // once the puzzle is open (opening it clears the message)
  listPuzzles();
  document.body.dataset.readyMs = String(Math.round(performance.now())); // for bench/web_speed.py
  document.body.dataset.ready = "true";
}

main().catch((error) => say(error.message));
