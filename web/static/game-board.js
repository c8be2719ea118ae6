// The board of a person's turn in a game: the table being rearranged, the tiles taken off it
// (the workspace), and the rack along the bottom. The turn lives on the server (the library's
// turn editor, with undo): this board only draws the state it is given and turns what the person
// does — a drag, or tiles picked with clicks or the keyboard and a "Move here" — into the
// editor's manipulations (take, add, lay, back, split), sent as one step.

import { element as el, plural } from "./dom.js";
import { Dragging } from "./drag.js";
import { compareTiles, parts, tileElement } from "./tiles.js";

/** Rack order: by colour then number (the library's), or by number then colour. */
export function sortRack(tiles, order) {
  const list = tiles.map((tile, index) => ({ tile, index }));
  if (order === "number") {
    list.sort((a, b) => {
      const pa = parts(a.tile);
      const pb = parts(b.tile);
      const na = pa.letter === "J" ? 99 : pa.number;
      const nb = pb.letter === "J" ? 99 : pb.number;
      return na - nb || compareTiles(a.tile, b.tile);
    });
  } else {
    list.sort((a, b) => compareTiles(a.tile, b.tile));
  }
  return list;
}

export class GameBoard {
  /** root: where the board is drawn; send(commands) -> Promise (the server applies them as one step);
   * onError(message) for a move the board refuses itself. */
  constructor(root, { send, onError }) {
    this.root = root;
    this.send = send;
    this.onError = onError;
    this.editing = null;
    this.selected = new Set(); // tile keys: "rack:i", "ws:i", "set:N:i"
    this.marks = new Map(); // set index -> reasons
    this.workspaceMarked = false;
    this.changedSets = [];
    this.order = "colour";
    this.focusKey = null;
    this.dragging = new Dragging([root], {
      sourceSelector: "button[data-key^='rack:'], button[data-key^='ws:'], button[data-key^='set:']",
      onDrop: (source, target) => {
        const key = source.dataset.key;
        const keys = this.selected.has(key) ? [...this.selected] : [key];
        this.moveTo(keys, target.dataset.drop);
      },
    });
    root.addEventListener("click", (event) => this.onClick(event));
    root.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.selected.size) {
        this.selected.clear();
        this.render();
      }
    });
  }

  /** The server's state of the turn (view.editing); `changedSets`: sets others changed since
   * this person's last turn, framed while the table is as the turn found it. */
  show(editing, { changedSets = [], marks = new Map(), workspaceMarked = false } = {}) {
    // Tiles picked while an action was on its way stay picked where they still are (a slow
    // network's answer redrew the board and dropped them).
    const picked = this.editing ? [...this.selected].map((k) => this.item(k)).filter((i) => i.tile) : [];
    this.editing = editing;
    this.changedSets = changedSets;
    this.marks = marks;
    this.workspaceMarked = workspaceMarked;
    this.selected = new Set(this.found(picked));
    this.render();
  }

  /** The keys of the picked tiles in the board as it is now: the same tile in the same place. */
  found(picked) {
    const keys = [];
    for (const { where, set, tile, own } of picked) {
      const row = where === "rack" ? this.editing.rack : where === "ws" ? this.editing.workspace : this.editing.table[set];
      const prefix = where === "set" ? `set:${set}` : where;
      const flags = where === "rack" ? null : where === "ws" ? this.editing.workspace_laid : this.editing.laid[set];
      // The same copy: the same face, and yours or the table's as before.
      const at = (row ?? []).findIndex(
        (t, i) => t === tile && !keys.includes(`${prefix}:${i}`) && (own === undefined || !flags || flags[i] === own),
      );
      if (at >= 0) keys.push(`${prefix}:${at}`);
    }
    return keys;
  }

  setOrder(order) {
    this.order = order;
    if (this.editing) this.render();
  }

  // ------------------------------------------------------------------ what a person does

  item(key) {
    const [where, a, b] = key.split(":");
    const e = this.editing;
    if (where === "rack") return { where, tile: e.rack[Number(a)] };
    if (where === "ws") return { where, tile: e.workspace[Number(a)], own: e.workspace_laid[Number(a)] };
    return { where: "set", set: Number(a), at: Number(b), tile: e.table[Number(a)][Number(b)], own: e.laid[Number(a)][Number(b)] };
  }

  /** The manipulations that bring the tiles `keys` to `target` ("rack", "workspace", "new",
   * "set:N"), as one step: table tiles are first taken off their sets (set numbers never shift
   * during a turn: an emptied set stays as an empty place), then laid in a new set, added to the
   * set, or put back. */
  commandsFor(keys, target) {
    const items = keys.map((k) => this.item(k));
    const into = target.startsWith("set:") ? Number(target.slice(4)) : null;
    const moving = items.filter((i) => !(i.where === "set" && i.set === into));
    if (!moving.length) return [];
    const commands = [];
    const bySet = new Map();
    for (const i of moving.filter((m) => m.where === "set")) bySet.set(i.set, [...(bySet.get(i.set) ?? []), i]);
    // Each copy by its place in the set: the one picked is the one taken.
    for (const [index, picked] of bySet) commands.push({ do: "take", set: index, tiles: picked.map((i) => i.tile), at: picked.map((i) => i.at) });
    const tiles = moving.map((i) => i.tile);
    // The rack's copies picked are the ones that go, though a copy may lie in the workspace.
    const fromRack = moving.filter((i) => i.where === "rack").map((i) => i.tile);
    const ownLoose = moving.filter((i) => i.where !== "rack" && i.own).map((i) => i.tile);
    const own = { ...(fromRack.length ? { from_rack: fromRack } : {}), ...(ownLoose.length ? { own_loose: ownLoose } : {}) };
    if (target === "new") commands.push({ do: "lay", tiles, ...own });
    else if (into !== null) commands.push({ do: "add", set: into, tiles, ...own });
    else if (target === "rack") {
      const back = moving.filter((i) => i.where !== "rack").map((i) => i.tile);
      if (!back.length) return [];
      commands.push({ do: "back", tiles: back });
    } else if (target === "workspace") {
      if (moving.some((i) => i.where === "rack")) {
        throw new Error("tiles from your rack go onto a set or into a new set, not aside");
      }
      if (!bySet.size) return [];
    }
    return commands;
  }

  async moveTo(keys, target) {
    let commands;
    try {
      commands = this.commandsFor(keys, target);
    } catch (error) {
      this.onError(error.message);
      return;
    }
    if (!commands.length) {
      this.selected.clear();
      this.render();
      return;
    }
    // The focus follows the tiles: to the set they went to (a new set comes last: set numbers
    // never shift during a turn), not to a "Move here" button hidden once nothing is picked.
    this.focusKey = target === "new" ? `zone:set:${this.editing.table.length}` : `zone:${target}`;
    for (const key of keys) this.selected.delete(key); // on their way: picks from now on are new ones
    await this.send(commands);
  }

  onClick(event) {
    if (this.dragging.swallowClick()) return;
    const button = event.target.closest("button");
    if (!button || !this.root.contains(button)) return;
    const key = button.dataset.key ?? "";
    if (/^(rack|ws|set):/.test(key)) {
      if (this.selected.has(key)) this.selected.delete(key);
      else this.selected.add(key);
      this.focusKey = key;
      this.render();
    } else if (button.dataset.moveTo) {
      this.moveTo([...this.selected], button.dataset.moveTo);
    } else if (button.dataset.split) {
      const index = Number(button.dataset.split);
      const [key] = [...this.selected];
      this.focusKey = `zone:set:${index}`;
      const at = Number(key.split(":")[2]); // which copy, when the set holds two
      this.selected.clear(); // used: nothing stays picked
      this.send([{ do: "split", set: index, tiles: [this.item(key).tile], at }]);
    } else if (button.dataset.swap) {
      const index = Number(button.dataset.swap);
      const items = [...this.selected].map((k) => this.item(k));
      const mine = items.find((i) => i.where === "rack");
      const theirs = items.find((i) => i.where === "set");
      this.focusKey = `zone:set:${index}`;
      this.selected.clear(); // used: nothing stays picked
      // Yours goes in the place theirs leaves (under strict jokers a joker's place says what it is).
      this.send([
        { do: "take", set: index, tiles: [theirs.tile], at: [theirs.at] },
        { do: "add", set: index, tiles: [mine.tile], from_rack: [mine.tile], at: [theirs.at] },
      ]);
    }
  }

  // ------------------------------------------------------------------ drawing

  tile(tile, key, played) {
    const button = tileElement(tile, { button: true, played });
    button.dataset.key = key;
    const picked = this.selected.has(key);
    button.setAttribute("aria-pressed", String(picked));
    if (picked) button.classList.add("selected");
    return button;
  }

  moveButton(target, text, label) {
    const n = this.selected.size;
    return el("button", {
      type: "button",
      class: "move-here",
      text,
      "aria-label": `${label} (${plural(n, "selected tile")})`,
      "data-move-to": target,
      "data-key": target === "new" ? "move:new" : `move:${target}`,
      hidden: n === 0,
    });
  }

  /** With one rack tile and one tile of set `index` picked: swap them (a joker is retrieved). */
  swapButton(index) {
    if (this.selected.size !== 2) return null;
    const items = [...this.selected].map((k) => this.item(k));
    const mine = items.find((i) => i.where === "rack");
    const theirs = items.find((i) => i.where === "set" && i.set === index);
    if (!mine || !theirs || this.editing.table[index].length < 2) return null;
    const joker = theirs.tile === "J";
    return el("button", {
      type: "button",
      class: "swap",
      text: joker ? "Retrieve the joker" : "Swap",
      "data-swap": String(index),
      "data-key": `swap:${index}`,
      "aria-label": joker
        ? `Put ${mine.tile} in the joker's place in set ${index + 1}; the joker goes aside`
        : `Put ${mine.tile} in set ${index + 1} in place of ${theirs.tile}, which goes aside`,
    });
  }

  splitButton(index, set) {
    if (this.selected.size !== 1) return null;
    const [key] = [...this.selected];
    const [where, a, b] = key.split(":");
    if (where !== "set" || Number(a) !== index || Number(b) === 0 || set.length < 2) return null;
    return el("button", {
      type: "button",
      class: "split",
      text: "Split",
      "data-split": String(index),
      "data-key": `split:${index}`,
      "aria-label": `Split set ${index + 1} before the selected tile`,
    });
  }

  render() {
    const e = this.editing;
    if (!e) return;
    const active = document.activeElement;
    const focusKey = this.focusKey ?? (this.root.contains(active) ? active?.dataset.key : null);
    this.focusKey = null;
    const framed = e.changed ? [] : this.changedSets;

    const sets = el("ol", { class: "sets" });
    e.table.forEach((set, i) => {
      if (!set.length) {
        // A set emptied this turn keeps its number: an empty place, not shown.
        sets.append(el("li", { class: "set", "data-set": String(i), hidden: true }));
        return;
      }
      const reasons = this.marks.get(i);
      const others = framed.includes(i);
      const item = el(
        "li",
        {
          class: `set${reasons ? " bad" : ""}${others ? " others-changed" : ""}`,
          "data-set": String(i),
          "data-drop": `set:${i}`,
          "data-key": `zone:set:${i}`,
          tabIndex: -1,
          "aria-label": `set ${i + 1}, ${plural(set.length, "tile")}${others ? ", changed since your last turn" : ""}${reasons ? `, not valid: ${reasons.join("; ")}` : ""}`,
          "aria-invalid": reasons ? "true" : undefined,
        },
        el("div", { class: "tiles" }, ...set.map((t, j) => this.tile(t, `set:${i}:${j}`, e.laid[i][j]))),
        el(
          "div",
          { class: "set-tools" },
          this.moveButton(`set:${i}`, "Move here", `Move to set ${i + 1}`),
          this.splitButton(i, set),
          this.swapButton(i),
          others ? el("span", { class: "badge", text: "changed" }) : null,
        ),
        reasons ? el("ul", { class: "reasons" }, ...reasons.map((r) => el("li", { text: r }))) : null,
      );
      sets.append(item);
    });
    const fresh = el(
      "div",
      { class: "new-set", "data-drop": "new", "data-key": "zone:new", tabIndex: -1 },
      this.moveButton("new", "New set", "Make a new set"),
      el("span", { class: "hint-text", text: "Drop tiles here for a new set" }),
    );
    const shown = e.table.filter((s) => s.length).length;
    const table = el(
      "section",
      { class: "zone table-zone", "aria-label": "Table" },
      el("h3", { text: `Table (${plural(shown, "set")})` }),
      sets,
      shown ? null : el("p", { class: "empty", text: "The table is empty." }),
      fresh,
    );

    const workspace = el(
      "section",
      {
        class: `zone workspace-zone${this.workspaceMarked ? " bad" : ""}`,
        "data-drop": "workspace",
        "data-key": "zone:workspace",
        tabIndex: -1,
        "aria-label": "Tiles taken off the table",
      },
      el("h3", { text: `Taken off the table (${e.workspace.length})` }),
      el(
        "div",
        { class: "tiles" },
        ...e.workspace.map((t, i) => this.tile(t, `ws:${i}`, e.workspace_laid[i])),
        e.workspace.length ? null : el("span", { class: "empty", text: "Drop table tiles here to use them elsewhere; every one must be in a set by Done." }),
      ),
      el("div", { class: "zone-tools" }, this.moveButton("workspace", "Move here", "Take off the table")),
    );

    const rack = el(
      "section",
      { class: "zone rack-zone", "data-drop": "rack", "data-key": "zone:rack", tabIndex: -1, "aria-label": "Your rack" },
      el("h3", { text: `Your rack (${e.rack.length})` }),
      el(
        "div",
        { class: "tiles" },
        ...sortRack(e.rack, this.order).map(({ tile, index }) => this.tile(tile, `rack:${index}`, false)),
        e.rack.length ? null : el("span", { class: "empty", text: "empty" }),
      ),
      el("div", { class: "zone-tools" }, this.moveButton("rack", "Move here", "Put back on your rack")),
    );
    this.root.replaceChildren(table, workspace, rack);
    const refocus = focusKey && this.root.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (refocus) refocus.focus();
  }
}
