// Tiles as page elements: the number in its colour ink, a shape per colour (so the colours are
// told apart without hue), a clear joker, a spoken label ("red 7", "joker"), and data-tile="R7"
// as a stable hook for tests and tools. The colour names come from the server (/api/rules).

// One shape per colour, in the library's colour order (K B R O G P W C).
const SHAPES = ["●", "■", "▲", "◆", "★", "✚", "○", "▼"];
const JOKER = "J";

let colours = [
  { letter: "K", name: "black" },
  { letter: "B", name: "blue" },
  { letter: "R", name: "red" },
  { letter: "O", name: "orange" },
];

/** Use the colour letters and names the server gives (GET /api/rules). */
export function setColours(list) {
  colours = list;
}

export function colourList() {
  return colours;
}

/** { letter, number } of a tile text such as "R7"; a joker has letter "J", number 0. */
export function parts(tile) {
  if (tile === JOKER) return { letter: JOKER, number: 0 };
  return { letter: tile[0], number: Number(tile.slice(1)) };
}

export function label(tile) {
  if (tile === JOKER) return "joker";
  const { letter, number } = parts(tile);
  const colour = colours.find((c) => c.letter === letter);
  return `${colour ? colour.name : letter} ${number}`;
}

/**
 * A tile element. `button`: a focusable button (it can be picked up and moved); otherwise a
 * picture with a label. `played`: a tile from the player's rack, highlighted.
 */
export function tileElement(tile, { button = false, played = false } = {}) {
  const el = document.createElement(button ? "button" : "span");
  const { letter, number } = parts(tile);
  el.className = `tile ink-${letter}`;
  if (played) el.classList.add("played");
  el.dataset.tile = tile;
  if (button) {
    el.type = "button";
  } else {
    el.setAttribute("role", "img");
  }
  el.setAttribute("aria-label", label(tile) + (played ? ", from your rack" : ""));
  const face = document.createElement("span");
  face.className = "num";
  face.textContent = tile === JOKER ? "J" : String(number);
  const shape = document.createElement("span");
  shape.className = "shape";
  shape.setAttribute("aria-hidden", "true");
  const index = colours.findIndex((c) => c.letter === letter);
  shape.textContent = tile === JOKER ? "☺" : SHAPES[index] ?? letter;
  el.append(face, shape);
  return el;
}

/** The library's plain order for loose tiles: by colour, then number, jokers last. */
export function compareTiles(a, b) {
  const pa = parts(a);
  const pb = parts(b);
  const ca = pa.letter === JOKER ? 99 : colours.findIndex((c) => c.letter === pa.letter);
  const cb = pb.letter === JOKER ? 99 : colours.findIndex((c) => c.letter === pb.letter);
  return ca - cb || pa.number - pb.number;
}
