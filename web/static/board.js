// A board a person edits: a rack and the sets of a table, tiles moved by dragging (mouse or
// finger, drag.js) or by picking them up and choosing where they go (click, or the keyboard: Enter on
// tiles, then Enter on "Move here"), with undo, redo and reset. It knows tiles only as text:
// whether a set is valid, and what a move is worth, is the server's to say.
//
// mode "answer": the puzzle trainer (tiles move between the rack and the table, sets split);
// mode "position": the analysis board (also a palette to add tiles from, notation typed into
// a set, tiles removed).

import { element as el } from "./dom.js";
import { Dragging } from "./drag.js";
import { compareTiles, parts, tileElement } from "./tiles.js";

let nextId = 1;

function entry(tile, fromRack = false) {
  return { id: nextId++, tile, fromRack };
}

function sortEntries(list) {
  return list.sort((a, b) => compareTiles(a.tile, b.tile));
}

/** A set in the order a person reads it: a run with its jokers where they stood (a joker keeps
 * its number beside the nearest numbered tile it was given after, or before, in the direction the
 * set is written, as the strict joker rules read it), the others in its gaps, any left over after
 * its top; anything else by colour then number, jokers last. The server reads jokers from this
 * order under strict joker rules. */
function arranged(list, written = list.length) {
  const sorted = sortEntries([...list]);
  const isJoker = (e) => parts(e.tile).letter === "J";
  const numbered = sorted.filter((e) => !isJoker(e));
  const spare = [];
  const numbers = numbered.map((e) => parts(e.tile).number);
  const oneColour = new Set(numbered.map((e) => parts(e.tile).letter)).size === 1;
  if (numbered.length === list.length || numbered.length < 2 || !oneColour || new Set(numbers).size < numbers.length) {
    return sorted;
  }
  const at = new Map(numbered.map((e) => [parts(e.tile).number, e]));
  // In the direction the set was written (tiles joining it come after): that of its first two
  // numbered tiles, ascending with one, as solver/jokers.py keeps_places reads it. K6 K5 J given
  // K7 is J K5 K6 K7, the joker still K4.
  const [first, second] = list.slice(0, written).filter((e) => !isJoker(e)).map((e) => parts(e.tile).number);
  const step = first > second ? -1 : 1;
  list.forEach((e, i) => {
    if (!isJoker(e)) return;
    const wanted = writtenNumber(list, i, step);
    if (wanted >= 1 && !at.has(wanted)) at.set(wanted, e);
    else spare.push(e);
  });
  const places = [...at.keys()].sort((a, b) => a - b);
  for (let n = places[0]; n < places[places.length - 1] && spare.length; n++) {
    if (!at.has(n)) at.set(n, spare.shift());
  }
  const out = [...at.keys()].sort((a, b) => a - b).map((n) => at.get(n));
  return [...out, ...spare];
}

/** The number the joker at list[i] stands for by its place: counted from the nearest numbered
 * tile before it in the list, or after it when none is before, `step` a place (1: the list is
 * written ascending, -1: descending; null when there is no numbered tile). */
function writtenNumber(list, i, step) {
  for (let k = i - 1; k >= 0; k--) {
    const { letter, number } = parts(list[k].tile);
    if (letter !== "J") return number + step * (i - k);
  }
  for (let k = i + 1; k < list.length; k++) {
    const { letter, number } = parts(list[k].tile);
    if (letter !== "J") return number - step * (k - i);
  }
  return null;
}

export class Board {
  /**
   * root: where the board is drawn. options: mode ("answer" or "position"), rackTitle,
   * palette (an element for the palette, position mode), parseTiles(text) -> Promise of tiles
   * (position mode), copies(tile) -> how many of the tile the rules have (position mode: a
   * palette tile all of whose copies are on the board is marked, and not added again),
   * onChange(board) after every change, onError(message).
   */
  constructor(root, options) {
    this.root = root;
    this.options = { mode: "answer", rackTitle: "Your rack", ...options };
    this.state = { rack: [], sets: [] };
    this.start = this.copy();
    this.past = [];
    this.future = [];
    this.selected = new Set();
    this.marks = new Map();
    this.focusKey = null;
    root.addEventListener("click", (event) => this.onClick(event));
    root.addEventListener("keydown", (event) => this.onKey(event));
    root.addEventListener("submit", (event) => this.onSubmit(event));
    root.addEventListener("change", (event) => this.onNotationChange(event));
    // A drop back on the palette removes a tile (position mode only).
    this.dragging = new Dragging([root, this.options.palette].filter(Boolean), {
      sourceSelector: "[data-id], [data-palette]",
      accept: (target) => target.dataset.drop !== "palette" || this.options.mode === "position",
      onDrop: (source, target) => this.drop(source, target.dataset.drop),
    });
    if (this.options.palette) {
      this.options.palette.addEventListener("click", (event) => this.onPaletteClick(event));
      this.options.palette.addEventListener("keydown", (event) => this.onPaletteKey(event));
      this.options.palette.addEventListener("focusin", (event) => this.paletteStop(event.target.closest("[data-palette]")));
    }
  }

  // ------------------------------------------------------------------ the state and its history

  /** A new rack and table (no history; reset comes back here). */
  load(rack, sets) {
    this.state = {
      rack: sortEntries(rack.map((t) => entry(t, true))),
      sets: sets.map((s) => s.map((t) => entry(t))),
    };
    this.start = this.copy();
    this.past = [];
    this.future = [];
    this.selected.clear();
    this.marks.clear();
    this.render();
  }

  copy() {
    return {
      rack: this.state.rack.map((e) => ({ ...e })),
      sets: this.state.sets.map((s) => s.map((e) => ({ ...e }))),
    };
  }

  /** Change the board as one undoable step. */
  change(mutate) {
    const before = this.copy();
    mutate(this.state);
    this.state.sets = this.state.sets.filter((s) => s.length > 0);
    this.past.push(before);
    this.future = [];
    this.afterChange();
  }

  afterChange() {
    this.selected.clear();
    this.marks.clear();
    this.render();
    this.options.onChange?.(this);
  }

  undo() {
    if (!this.past.length) return;
    this.future.push(this.copy());
    this.state = this.past.pop();
    this.afterChange();
  }

  redo() {
    if (!this.future.length) return;
    this.past.push(this.copy());
    this.state = this.future.pop();
    this.afterChange();
  }

  reset() {
    const start = { rack: this.start.rack.map((e) => ({ ...e })), sets: this.start.sets.map((s) => s.map((e) => ({ ...e }))) };
    this.change((state) => {
      state.rack = start.rack;
      state.sets = start.sets;
    });
  }

  /** The table as lists of tiles (what the server judges or solves). */
  table() {
    return this.state.sets.map((s) => s.map((e) => e.tile));
  }

  rack() {
    return this.state.rack.map((e) => e.tile);
  }

  /** Mark sets the server found wrong: index -> reasons (cleared by the next change). */
  mark(reasons) {
    this.marks = new Map(reasons);
    this.render();
  }

  /** The same, on the sets as they are drawn: nothing else is drawn again (a box being typed in
   * keeps its text and the focus). */
  markInPlace(reasons) {
    this.marks = new Map(reasons);
    for (const item of this.root.querySelectorAll(".table-zone li[data-set]")) {
      const i = Number(item.dataset.set);
      this.showMarks(item, i, this.state.sets[i]?.length ?? 0);
    }
  }

  /** A set's marks: framed and labelled "✗ not valid" with its reasons under it, and the reasons
   * in its accessible name (a screen reader hears why, not only that). */
  showMarks(item, i, size) {
    const reasons = this.marks.get(i);
    item.classList.toggle("bad", Boolean(reasons));
    const why = reasons ? `, not valid: ${reasons.join("; ")}` : "";
    item.setAttribute("aria-label", `set ${i + 1}, ${size} tile${size === 1 ? "" : "s"}${why}`);
    if (reasons) item.setAttribute("aria-invalid", "true");
    else item.removeAttribute("aria-invalid");
    item.querySelector(":scope > .reasons")?.remove();
    if (reasons) item.append(el("ul", { class: "reasons" }, ...reasons.map((r) => el("li", { text: r }))));
  }

  // ------------------------------------------------------------------ moves

  take(ids) {
    const taken = [];
    const pick = (list) => list.filter((e) => (ids.has(e.id) ? (taken.push(e), false) : true));
    this.state.rack = pick(this.state.rack);
    this.state.sets = this.state.sets.map(pick);
    return taken;
  }

  /** Move tiles (by id) to "rack", "new" (a new set) or "set:N". */
  move(ids, target) {
    if (!ids.size) return;
    this.focusKey = target === "palette" ? null : `tile:${[...ids][0]}`;
    this.change((state) => {
      const taken = this.take(ids); // sets emptied stay until the change ends: indices hold
      if (target === "rack") {
        state.rack = sortEntries([...state.rack, ...taken]);
      } else if (target === "new") {
        state.sets.push(arranged(taken));
      } else if (target.startsWith("set:")) {
        const index = Number(target.slice(4));
        state.sets[index] = arranged([...state.sets[index], ...taken], state.sets[index].length);
      } // "palette": dropped back on the palette, the tiles are gone
    });
  }

  /** Cut set `index` in two, the second part starting at tile `id`. */
  split(index, id) {
    const set = this.state.sets[index];
    const at = set.findIndex((e) => e.id === id);
    if (at <= 0) return;
    this.focusKey = `tile:${id}`;
    this.change((state) => {
      state.sets.splice(index, 1, set.slice(0, at), set.slice(at));
    });
  }

  /** Position mode: tiles added (from the palette or typed) to the rack, a set or a new set. */
  add(tiles, target = "rack") {
    this.change((state) => {
      const added = tiles.map((t) => entry(t, target === "rack"));
      if (target === "rack") state.rack = sortEntries([...state.rack, ...added]);
      else if (target === "new") state.sets.push(added);
      else state.sets[Number(target.slice(4))].push(...added);
    });
  }

  /** Position mode: set `index` replaced by what was typed for it. */
  replaceSet(index, tiles) {
    this.change((state) => {
      state.sets[index] = tiles.map((t) => entry(t));
    });
  }

  /** Ctrl+Z undoes, Ctrl+Y and Ctrl+Shift+Z redo, anywhere on the page but in a text field. */
  listenForUndoKeys() {
    document.addEventListener("keydown", (event) => {
      if (!(event.ctrlKey || event.metaKey) || event.target.closest("input, select, textarea")) return;
      const key = event.key.toLowerCase();
      if (key === "z" && !event.shiftKey) this.undo();
      else if (key === "y" || key === "z") this.redo();
      else return;
      event.preventDefault();
    });
  }

  // ------------------------------------------------------------------ events

  onClick(event) {
    if (this.dragging.swallowClick()) return;
    const button = event.target.closest("button");
    if (!button || !this.root.contains(button)) return;
    if (button.dataset.id) {
      const id = Number(button.dataset.id);
      if (this.selected.has(id)) this.selected.delete(id);
      else this.selected.add(id);
      this.render();
    } else if (button.dataset.moveTo) {
      this.move(new Set(this.selected), button.dataset.moveTo);
    } else if (button.dataset.split) {
      const index = Number(button.dataset.split);
      const chosen = this.state.sets[index].find((e) => this.selected.has(e.id));
      if (chosen) this.split(index, chosen.id);
    } else if (button.dataset.removeSet) {
      const index = Number(button.dataset.removeSet);
      this.change((state) => state.sets.splice(index, 1));
    } else if (button.dataset.removeSelected !== undefined) {
      this.change(() => this.take(new Set(this.selected)));
    }
  }

  onKey(event) {
    const tile = event.target.closest?.("button[data-id]");
    if (event.key === "Escape" && this.selected.size) {
      this.selected.clear();
      this.render();
    } else if (tile && (event.key === "Delete" || event.key === "Backspace") && this.options.mode === "position") {
      event.preventDefault();
      const ids = this.selected.size ? new Set(this.selected) : new Set([Number(tile.dataset.id)]);
      // The focus stays where the work is: on the tile after the ones removed (or before them).
      const tiles = [...this.root.querySelectorAll("button[data-id]")];
      const at = tiles.indexOf(tile);
      const left = (list) => list.find((b) => !ids.has(Number(b.dataset.id)));
      const next = left(tiles.slice(at + 1)) ?? left(tiles.slice(0, at).reverse());
      this.focusKey = next ? next.dataset.key : null;
      this.change(() => this.take(ids));
    }
  }

  onPaletteClick(event) {
    if (this.dragging.swallowClick()) return;
    const button = event.target.closest("button[data-palette]");
    if (button) {
      this.focusKey = null;
      this.addFromPalette(button.dataset.palette, "rack");
    }
  }

  /** The palette is one Tab stop (its 50-odd tiles would stand between the board and Best move):
   * the arrow keys go from tile to tile, Left and Right along a colour, Up and Down between colours. */
  onPaletteKey(event) {
    const steps = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0], Home: [0, -Infinity], End: [0, Infinity] };
    const button = event.target.closest("[data-palette]");
    if (!button || !(event.key in steps)) return;
    event.preventDefault();
    const rows = [...this.options.palette.querySelectorAll(".palette-row")].map((row) => [...row.querySelectorAll("[data-palette]")]);
    const r = rows.findIndex((row) => row.includes(button));
    const [dr, dc] = steps[event.key];
    const row = rows[Math.min(Math.max(r + dr, 0), rows.length - 1)];
    const c = Math.min(Math.max(rows[r].indexOf(button) + dc, 0), row.length - 1);
    row[c].focus();
  }

  /** The palette's one Tab stop: the tile last focused (the first at the start). */
  paletteStop(button) {
    if (!button) return;
    for (const other of this.options.palette.querySelectorAll("[data-palette]")) other.tabIndex = other === button ? 0 : -1;
  }

  /** A palette tile added, unless every copy the rules have is on the board already (said at once:
   * the server would refuse the position only at Best move). */
  addFromPalette(tile, target) {
    const have = this.options.copies?.(tile) ?? Infinity;
    if (this.count(tile) >= have) {
      this.options.onError?.(`no ${tile} left to add: the rules have ${have}, all on the board`);
      return;
    }
    this.add([tile], target);
  }

  /** How many of `tile` the rack and the table hold. */
  count(tile) {
    return [...this.state.rack, ...this.state.sets.flat()].filter((e) => e.tile === tile).length;
  }

  async onSubmit(event) {
    event.preventDefault();
    const form = event.target;
    const input = form.querySelector("input");
    const target = form.dataset.addTo;
    const tiles = await this.parse(input);
    if (tiles === null || !tiles.length) return;
    if (this.refuseTooMany(input, tiles)) return;
    input.value = "";
    this.focusKey = `input:${target}`;
    this.add(tiles, target);
  }

  /** Typed tiles past the copies the rules have are refused at once, the text kept to mend (the
   * server would refuse the position only at Best move); `without`: a set the tiles replace. */
  refuseTooMany(input, tiles, without = []) {
    const problem = this.tooMany(tiles, without);
    if (problem) {
      input.setAttribute("aria-invalid", "true");
      this.options.onError?.(problem);
    }
    return problem !== null;
  }

  /** The tiles on the board past the copies the rules have, in words (a link or a file may hold
   * them: the board shows them, and says so). */
  overCopies() {
    if (!this.options.copies) return [];
    const tiles = [...this.state.rack, ...this.state.sets.flat()].map((e) => e.tile);
    return [...new Set(tiles)]
      .filter((tile) => this.count(tile) > this.options.copies(tile))
      .map((tile) => `${tile} ${this.count(tile)} times: the rules have ${this.options.copies(tile)}`);
  }

  /** What is wrong with adding `tiles` (and taking away `without`), or null: a tile of which the
   * rules have fewer copies. */
  tooMany(tiles, without = []) {
    if (!this.options.copies) return null;
    for (const tile of new Set(tiles)) {
      const have = this.options.copies(tile);
      const count = this.count(tile) - without.filter((t) => t === tile).length + tiles.filter((t) => t === tile).length;
      if (count > have) return `too many ${tile}: ${count} with those typed, the rules have ${have}`;
    }
    return null;
  }

  async onNotationChange(event) {
    const input = event.target;
    if (!input.dataset.setNotation) return;
    const index = Number(input.dataset.setNotation);
    const tiles = await this.parse(input);
    if (tiles === null) return;
    if (this.refuseTooMany(input, tiles, this.state.sets[index].map((e) => e.tile))) return;
    this.focusKey = `notation:${index}`;
    if (tiles.length) this.replaceSet(index, tiles);
    else this.change((state) => state.sets.splice(index, 1));
  }

  async parse(input) {
    try {
      const tiles = await this.options.parseTiles(input.value);
      input.removeAttribute("aria-invalid");
      return tiles;
    } catch (error) {
      input.setAttribute("aria-invalid", "true");
      this.options.onError?.(error.message);
      return null;
    }
  }

  drop(source, target) {
    if (source.dataset.palette) {
      if (target !== "palette") this.addFromPalette(source.dataset.palette, target);
      return;
    }
    const id = Number(source.dataset.id);
    const ids = this.selected.has(id) ? new Set(this.selected) : new Set([id]);
    this.move(ids, target);
  }

  // ------------------------------------------------------------------ drawing

  tileButton(e, where) {
    const button = tileElement(e.tile, { button: true, played: where !== "rack" && e.fromRack && this.options.mode === "answer" });
    button.dataset.id = e.id;
    button.dataset.key = `tile:${e.id}`;
    const picked = this.selected.has(e.id);
    button.setAttribute("aria-pressed", String(picked));
    if (picked) button.classList.add("selected");
    return button;
  }

  moveButton(target, text, label) {
    return el("button", {
      type: "button",
      class: "move-here",
      text,
      "aria-label": label,
      "data-move-to": target,
      "data-key": `move:${target}`,
      hidden: this.selected.size === 0,
    });
  }

  notationForm(target, placeholder, label, button) {
    return el(
      "form",
      { class: "notation", "data-add-to": target },
      el("input", { type: "text", placeholder, "aria-label": label, "data-key": `input:${target}`, autocomplete: "off", spellcheck: false }),
      el("button", { type: "submit", text: button }),
    );
  }

  render() {
    const active = document.activeElement;
    const focusKey = this.focusKey ?? (this.root.contains(active) ? active?.dataset.key : null);
    this.focusKey = null;
    const position = this.options.mode === "position";
    const n = this.selected.size;

    const rackTiles = el("div", { class: "tiles" }, ...this.state.rack.map((e) => this.tileButton(e, "rack")));
    if (!this.state.rack.length) rackTiles.append(el("span", { class: "empty", text: position ? "empty: click tiles in the palette below, or type them" : "empty" }));
    const rack = el(
      "section",
      { class: "zone rack-zone", "data-drop": "rack", "aria-label": this.options.rackTitle },
      el("h3", { text: `${this.options.rackTitle} (${this.state.rack.length})` }),
      rackTiles,
      el("div", { class: "zone-tools" }, this.moveButton("rack", "Move here", `Move the ${n} selected tile${n === 1 ? "" : "s"} to the rack`)),
      position ? this.notationForm("rack", "R5 B7 J", "Add tiles to the rack, in notation", "Add") : null,
    );

    const sets = el("ol", { class: "sets" });
    this.state.sets.forEach((set, i) => {
      const canSplit = set.findIndex((e) => this.selected.has(e.id)) > 0;
      const item = el(
        "li",
        {
          class: "set",
          "data-set": String(i),
          "data-drop": `set:${i}`,
        },
        el("div", { class: "tiles" }, ...set.map((e) => this.tileButton(e, "table"))),
        el(
          "div",
          { class: "set-tools" },
          this.moveButton(`set:${i}`, "Move here", `Move the ${n} selected tile${n === 1 ? "" : "s"} to set ${i + 1}`),
          !position && canSplit
            ? el("button", { type: "button", class: "split", text: "Split", "data-split": String(i), "data-key": `split:${i}`, "aria-label": `Split set ${i + 1} before the selected tile` })
            : null,
          position
            ? el("input", {
                type: "text",
                class: "set-notation",
                value: set.map((e) => e.tile).join(" "),
                "aria-label": `Set ${i + 1} in notation`,
                "data-set-notation": String(i),
                "data-key": `notation:${i}`,
                autocomplete: "off",
                spellcheck: false,
              })
            : null,
          position
            ? el("button", { type: "button", class: "remove", text: "✕", "data-remove-set": String(i), "data-key": `remove:${i}`, "aria-label": `Remove set ${i + 1}` })
            : null,
        ),
      );
      this.showMarks(item, i, set.length);
      sets.append(item);
    });
    const fresh = el(
      "div",
      { class: "new-set", "data-drop": "new" },
      this.moveButton("new", "New set", `Make a new set of the ${n} selected tile${n === 1 ? "" : "s"}`),
      position ? this.notationForm("new", "R4-7, KBR7", "A new table set, in notation", "Add set") : el("span", { class: "hint-text", text: "Drop tiles here for a new set" }),
    );
    const table = el(
      "section",
      { class: "zone table-zone", "aria-label": "Table" },
      el("h3", { text: `Table (${this.state.sets.length} set${this.state.sets.length === 1 ? "" : "s"})` }),
      sets,
      fresh,
    );
    const tools = position && n
      ? el("p", { class: "selection-tools" }, el("button", { type: "button", text: `Remove ${n} selected`, "data-remove-selected": "", "data-key": "remove-selected" }))
      : null;
    this.root.replaceChildren(rack, table, ...(tools ? [tools] : []));
    const refocus = focusKey && this.root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (refocus) refocus.focus();
    this.markPalette();
  }

  /** The palette's tiles all of whose copies are on the board, marked as used up (seen, and told
   * to a screen reader). */
  markPalette() {
    if (!this.options.palette || !this.options.copies) return;
    for (const button of this.options.palette.querySelectorAll("[data-palette]")) {
      const tile = button.dataset.palette;
      const out = this.count(tile) >= this.options.copies(tile);
      button.classList.toggle("used-up", out);
      button.setAttribute("aria-disabled", String(out));
      button.setAttribute("aria-label", out ? `${button.dataset.name}: all on the board` : `add ${button.dataset.name} to the rack`);
    }
  }

  /** Position mode: the palette of every tile of the rules (a click puts one on the rack). */
  renderPalette(tiles) {
    const palette = this.options.palette;
    palette.replaceChildren(
      ...tiles.map((row) =>
        el(
          "div",
          { class: "palette-row" },
          ...row.map((t) => {
            const button = tileElement(t, { button: true });
            button.dataset.palette = t;
            button.dataset.name = button.getAttribute("aria-label");
            button.setAttribute("aria-label", `add ${button.dataset.name} to the rack`);
            return button;
          }),
        ),
      ),
    );
    this.paletteStop(palette.querySelector("[data-palette]"));
    this.markPalette();
  }
}
