// Dragging tiles with pointer events, so a mouse and a finger work alike: a press that moves
// less than a few pixels is a click (the page picks the tile up instead); a drag shows a ghost
// of the tile under the pointer and marks the drop zone ([data-drop]) it is over.

export class Dragging {
  /**
   * areas: elements whose [data-drag] descendants can be dragged (the sources are found with
   * `sourceSelector`); accept(target) says whether a drop zone takes a drop; onDrop(source, target)
   * after a drop. `dragged` is true right after a drag, so the click that follows is ignored.
   */
  constructor(areas, { sourceSelector, accept = () => true, onDrop }) {
    this.sourceSelector = sourceSelector;
    this.accept = accept;
    this.onDrop = onDrop;
    this.drag = null;
    this.dragged = false;
    for (const area of areas) area.addEventListener("pointerdown", (event) => this.down(event));
    document.addEventListener("pointermove", (event) => this.move(event));
    document.addEventListener("pointerup", (event) => this.up(event));
    document.addEventListener("pointercancel", () => this.end());
  }

  /** True once: the click that ends a drag is not a click. */
  swallowClick() {
    const was = this.dragged;
    this.dragged = false;
    return was;
  }

  down(event) {
    const source = event.target.closest(this.sourceSelector);
    if (!source || event.button !== 0) return;
    this.drag = { source, x: event.clientX, y: event.clientY, ghost: null, over: null };
  }

  move(event) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.ghost) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 6) return;
      drag.ghost = drag.source.cloneNode(true);
      drag.ghost.classList.add("ghost");
      for (const name of ["data-id", "data-palette", "data-tile", "data-key"]) drag.ghost.removeAttribute(name);
      drag.ghost.setAttribute("aria-hidden", "true");
      document.body.append(drag.ghost);
      document.body.classList.add("dragging");
    }
    drag.ghost.style.left = `${event.clientX - 16}px`;
    drag.ghost.style.top = `${event.clientY - 22}px`;
    const over = this.target(event);
    if (over !== drag.over) {
      drag.over?.classList.remove("drop-hover");
      over?.classList.add("drop-hover");
      drag.over = over;
    }
  }

  up(event) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.ghost) {
      this.drag = null;
      return;
    }
    this.dragged = true;
    setTimeout(() => (this.dragged = false), 0);
    const target = this.target(event);
    this.end();
    if (target) this.onDrop(drag.source, target);
  }

  end() {
    if (this.drag?.ghost) this.drag.ghost.remove();
    this.drag?.over?.classList.remove("drop-hover");
    document.body.classList.remove("dragging");
    this.drag = null;
  }

  target(event) {
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const target = under?.closest("[data-drop]");
    return target && this.accept(target) ? target : null;
  }
}
