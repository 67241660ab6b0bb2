// The toolbar's style picker (protocol 1.7, P26): the fill and outline colours of the 12-colour palette,
// the outline's width, the opacity and the font size. Each choice is one `style` op on the selection, and
// is remembered (localStorage `snapboard.style`) and sent with every new shape's snap, so new shapes take
// this person's last style. One Style button opens it below the toolbar; viewers do not get it (the group
// is an editing one).

import { colorHex, lookDefaults, palette, styleRanges } from '../lib/index.js';
import { colourDot } from './status.js';
import { button } from './toolbar.js';

/** Where the remembered style is kept. */
const storageKey = 'snapboard.style';

/** The outline widths offered, in canvas units before scale, with their names. */
export const strokeWidths = [[0, 'None'], [1.25, 'Thin'], [2.5, 'Medium'], [5, 'Thick'], [10, 'Heavy']];
/** The font sizes offered, in canvas units before scale. */
export const fontSizes = [12, 16, 20, 28, 40, 64, 96];
/** Opacity steps, in percent. */
const opacityStep = 10;

/**
 * A remembered style as read back: only the fields of a `style` op, each a valid colour or a number in its
 * range (P26), so that a damaged entry in storage is never sent.
 */
export function cleanStyle(value) {
  const style = {};
  if (!value || typeof value !== 'object') return style;
  for (const key of ['fill', 'stroke']) if (colorHex(value[key])) style[key] = value[key];
  for (const [key, [least, most]] of Object.entries(styleRanges)) {
    if (typeof value[key] === 'number' && value[key] >= least && value[key] <= most) style[key] = value[key];
  }
  return style;
}

export class StylePicker {
  /**
   * @param {object} board
   * @param {HTMLElement} board.element  the board: it takes the focus back after a choice
   * @param {import('./actions.js').Actions} board.actions  `style(fields)` on the selection
   */
  constructor({ element, actions }) {
    Object.assign(this, { element, actions });
    /** The style this person chose last, sent with every new shape: only the fields they chose. */
    this.style = cleanStyle(readStored());
    this.group = document.getElementById('style');
    this.menu = button({ id: 'style-menu', iconName: 'style', name: 'Style' });
    this.menu.setAttribute('aria-haspopup', 'true');
    this.menu.setAttribute('aria-expanded', 'false');
    this.menu.setAttribute('aria-controls', 'style-panel');
    this.menu.addEventListener('click', () => this.toggle());
    this.panel = document.createElement('div');
    this.panel.id = 'style-panel';
    this.panel.setAttribute('role', 'group');
    this.panel.setAttribute('aria-label', 'Style of the selection and of new shapes');
    this.fills = this.#swatches('fill', 'Fill');
    this.strokes = this.#swatches('stroke', 'Outline');
    this.width = this.#select('stroke-width', 'Outline width', strokeWidths, 'strokeWidth');
    this.fontSize = this.#select('font-size', 'Font size', fontSizes.map((n) => [n, String(n)]), 'fontSize');
    this.opacity = document.createElement('input');
    Object.assign(this.opacity, { type: 'range', id: 'opacity', min: String(styleRanges.opacity[0] * 100), max: '100', step: String(opacityStep) });
    // One op when the slider is let go, not one for every step it passes.
    this.opacity.addEventListener('change', () => this.choose('opacity', Number(this.opacity.value) / 100));
    this.panel.append(this.fills.row, this.strokes.row, labelled('Outline width', this.width), labelled('Opacity', this.opacity), labelled('Font size', this.fontSize));
    this.panel.addEventListener('keydown', (event) => { if (event.key === 'Escape') { event.preventDefault(); this.toggle(false); element.focus(); } });
    this.group.append(this.menu, this.panel);
    document.addEventListener('pointerdown', (event) => { if (!this.group.contains(event.target)) this.toggle(false); });
    this.show();
  }

  /**
   * The spec of a new `kind` shape: the kind and this person's last style. The colours go when chosen
   * (until then the server picks the fill); the numbers always, their defaults until chosen, so that a
   * duplicate's numbers, which the server also remembers as this session's last style, never carry over.
   */
  specFor(kind) {
    const { strokeWidth, opacity, fontSize } = lookDefaults;
    return { kind, strokeWidth, opacity, fontSize, ...this.style };
  }

  /**
   * Remembers `value` as this person's `field` (fill, stroke, strokeWidth, opacity, fontSize) and applies
   * it to the selection in one `style` op, when there is one.
   */
  choose(field, value) {
    this.style = cleanStyle({ ...this.style, [field]: value });
    try { localStorage.setItem(storageKey, JSON.stringify(this.style)); } catch { /* private mode: remembered for this page only */ }
    this.actions.style({ [field]: value });
    this.show();
  }

  /** Opens (true) or folds (false) the panel below its button; with no argument, toggles it. */
  toggle(open = !this.group.classList.contains('open')) {
    if (open) {
      const at = this.menu.getBoundingClientRect(), bar = document.getElementById('toolbar').getBoundingClientRect();
      this.panel.style.left = `${Math.max(4, Math.min(at.left, innerWidth - 300))}px`;
      this.panel.style.top = `${bar.bottom + 4}px`;
    }
    this.group.classList.toggle('open', open);
    this.menu.setAttribute('aria-expanded', String(open));
  }

  /** The controls as the remembered style is: the chosen swatches pressed, the values shown. */
  show() {
    const look = { ...lookDefaults, ...this.style };
    for (const [swatches, chosen] of [[this.fills, this.style.fill], [this.strokes, this.style.stroke]]) {
      for (const b of swatches.buttons) b.setAttribute('aria-pressed', String(!!chosen && colorHex(chosen) === palette[b.dataset.color]));
    }
    this.width.value = String(look.strokeWidth);
    this.fontSize.value = String(look.fontSize);
    this.opacity.value = String(Math.round(look.opacity * 100));
  }

  /** A labelled row of the 12 palette swatches for `field`. */
  #swatches(field, name) {
    const row = document.createElement('div');
    row.className = 'swatches';
    row.setAttribute('role', 'group');
    row.setAttribute('aria-label', name);
    const title = document.createElement('span');
    title.className = 'swatch-title';
    title.textContent = name;
    const buttons = Object.entries(palette).map(([colour, hex]) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'swatch';
      b.dataset.color = colour;
      b.dataset.field = field;
      b.setAttribute('aria-label', `${name} ${colour}`);
      b.title = `${name}: ${colour} (${hex})`;
      b.append(colourDot(hex));
      b.addEventListener('click', () => { this.choose(field, colour); this.element.focus(); });
      return b;
    });
    row.append(title, ...buttons);
    return { row, buttons };
  }

  /** A select of `options` ([value, name]) that chooses `field`. */
  #select(id, name, options, field) {
    const select = document.createElement('select');
    select.id = id;
    select.setAttribute('aria-label', name);
    for (const [value, text] of options) {
      const option = document.createElement('option');
      option.value = String(value);
      option.textContent = text;
      select.append(option);
    }
    select.addEventListener('change', () => this.choose(field, Number(select.value)));
    return select;
  }
}

function readStored() {
  try { return JSON.parse(localStorage.getItem(storageKey) ?? 'null'); } catch { return null; }
}

function labelled(text, control) {
  const label = document.createElement('label');
  label.className = 'style-field';
  const words = document.createElement('span');
  words.textContent = text;
  label.append(words, control);
  return label;
}
