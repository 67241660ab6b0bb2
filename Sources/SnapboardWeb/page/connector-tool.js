// The Connector tool (P28): with a line or an arrow chosen in the toolbar, a press on the board dragged
// past the slop draws a connector from where it went down to where it is let go, shown faint as it goes;
// the release sends one `connect` whose ends are those two points, which the server binds to a shape's
// anchor near them or to the shape under them. A drag that starts on a selected connector still moves it,
// one on a selected connector's end handle drags that end, and a click still selects: any other drag draws.

import { connectorFrame, isConnector } from '../lib/index.js';

/** The opacity of the connector drawn while the pointer is down. */
const draftOpacity = 0.5;
/** The outline width of a new connector where this person chose none (P28: 2.5 units look well). */
const connectorWidth = 2.5;

/**
 * The look a new `kind` connector takes (P28) from the style picker `styles` (or none): this person's last
 * outline colour, width, opacity and font size (a connector has no fill), its width 2.5 where they chose
 * none, which reads better on a line than a shape's default outline.
 */
export function connectorStyle(styles, kind) {
  const spec = styles ? styles.specFor(kind) : { kind };
  const style = { kind };
  for (const key of ['stroke', 'strokeWidth', 'opacity', 'fontSize']) if (spec[key] !== undefined) style[key] = spec[key];
  if (styles?.style?.strokeWidth === undefined) style.strokeWidth = connectorWidth;
  return style;
}

export class ConnectorTool {
  /**
   * @param {object} board
   * @param {{kind: string}} board.toolbar  the chosen kind: `line` or `arrow` makes this the tool in use
   * @param {import('./actions.js').Actions} board.actions  what sends the `connect`, in this person's last style
   * @param {import('./surface.js').Surface} board.surface  where the connector being drawn shows (`ui.draft`)
   */
  constructor({ toolbar, actions, surface }) {
    Object.assign(this, { toolbar, actions, surface });
    /** Where the drawing press went down (canvas units), or null. */
    this.from = null;
  }

  /** Whether a drag on the board draws a connector now: a line or an arrow is chosen and this person may edit. */
  get active() {
    return isConnector({ kind: this.toolbar.kind }) && this.actions.editable();
  }

  /** The press went down at `p` (canvas units) and travelled past its slop: drawing begins. */
  begin(p) {
    this.from = p;
    this.drag(p);
  }

  /** The pointer is at `p`: the faint connector follows it. */
  drag(p) {
    if (!this.from) return;
    const frame = connectorFrame(this.from, p);
    const style = connectorStyle(this.actions.styles, this.toolbar.kind);
    this.surface.ui.draft = { id: 'draft', ...style, ...frame, h: 16, scale: 1, z: 0, opacity: draftOpacity };
    this.surface.invalidate();
  }

  /** Let go at `p`: one `connect` from the press to `p`. Returns its op id, or null. */
  end(p) {
    const from = this.from;
    this.cancel();
    return from ? this.actions.connect(from, p, this.toolbar.kind) : null;
  }

  /** Escape, or a second finger: nothing is drawn. */
  cancel() {
    this.from = null;
    this.surface.ui.draft = null;
    this.surface.invalidate();
  }
}
