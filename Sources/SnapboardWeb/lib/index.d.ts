// Type declarations of the Snapboard JavaScript library (index.js and the modules it re-exports).
// PROTOCOL.md (Protocol/) is the contract for every message shape below; section numbers are its rules.
//
// Tests/Web/package.test.mjs reads this file with regular expressions and checks it against the code,
// so it keeps to one format:
// - A run-time export is one line that starts `export declare class NAME` (`extends BASE` may follow), `export declare function
//   NAME(` (the whole signature on that line) or `export declare const NAME: TYPE;`.
// - A class body ends with `}` alone at the start of a line. Each member is one line indented by two
//   spaces: `constructor(…);`, `name(…): T;`, `get name(): T;`, `name: T;` or `readonly name: T;`.
//   `// internal: a, b` lists the fields of an instance that are not API (the test wants every field
//   of a fresh instance either declared or listed there).
// - An interface is `export interface NAME {` … `}` with one member a line (`  name?: T;`); a type
//   alias is `export type NAME = …;`. Types only: index.js exports no value of these names.

// ---------------------------------------------------------------------------------------------------
// Shapes and the canvas (P3, P4)

/** A colour as hue, saturation, brightness and alpha, each 0–1. */
export interface HSBColor {
  h: number;
  s: number;
  b: number;
  a: number;
}

export type ShapeKind = 'dot' | 'roundedRect' | 'oval' | 'triangle' | 'polygon' | 'star' | 'fractal' | 'text' | 'note' | 'line' | 'arrow';
export type Hatch = 'none' | 'hatch' | 'crossHatch';

/** A shape in its wire form (P4): centre (x, y), unscaled frame w × h, rotation in radians (0 ≤ r < 2π). */
export interface Shape {
  id: string;
  kind: ShapeKind;
  x: number;
  y: number;
  w: number;
  h: number;
  scale: number;
  rotation: number;
  fill: HSBColor;
  hatch: Hatch;
  z: number;
  sides?: number;
  points?: number;
  inner?: number;
  depth?: number;
  /** Present, and true, only while the shape is locked (1.6, P25): it refuses moves, scales, rotations and deletes. */
  locked?: boolean;
  /** 1.7 (P26), each present only when not its default: the label, or a text's or note's content (default ''). */
  text?: string;
  /** The outline and text colour, lowercase `#rrggbb` (absent: the default outline, text in #1e1e1e). */
  stroke?: string;
  /** The outline's width in canvas units before scale, 0–32 (default 1.25; 0 draws none). */
  strokeWidth?: number;
  /** The whole shape's opacity, 0.1–1 (default 1). */
  opacity?: number;
  /** The text's size in canvas units before scale, 8–160 (default 20). */
  fontSize?: number;
  /** The group the shape is in (1.7, P27); absent when in none. A page selects every member on a click on one. */
  group?: string;
  /** A connector's `from` end where it is bound to a shape (1.7, P28); absent when free. Its frame says where the end is. */
  from?: Binding;
  /** A connector's `to` end (an arrow's head) where it is bound to a shape (1.7, P28); absent when free. */
  to?: Binding;
}

/** Where a connector's end may be bound on a shape (P28): its centre or the middle of an edge of its frame. */
export type Anchor = 'center' | 'top' | 'right' | 'bottom' | 'left';

/**
 * A connector's end bound to a shape that is no connector (1.7, P28): at a named `anchor`, or at the point
 * (`u`, `v`) of its own frame, fractions of its width and height from its centre, each −0.5…0.5.
 */
export interface Binding {
  shape: string;
  anchor?: Anchor;
  u?: number;
  v?: number;
}

/** A connector's end as `connect` takes it (P28): a point in canvas units, which the server binds as a dragged end, or a binding as given. */
export type ConnectorEnd = Point | Binding;

/** Which end of a connector (P28): `from`, or `to` (an arrow's head). */
export type ConnectorEndName = 'from' | 'to';

/** The 12 colours of the palette (P26). */
export type PaletteName = 'black' | 'grey' | 'white' | 'red' | 'orange' | 'yellow' | 'green' | 'teal' | 'blue' | 'violet' | 'pink' | 'brown';

/** A colour in an op (P26): `#rrggbb` (hex digits of either case) or a palette name; anything else is refused `bad_style`. */
export type Color = PaletteName | `#${string}`;

/** The style fields of a `style` op or a snap's spec (P26): colours as `Color`, numbers in their ranges. */
export interface ShapeStyle {
  fill?: Color;
  stroke?: Color;
  strokeWidth?: number;
  opacity?: number;
  fontSize?: number;
}

/** A shape's text and style with the defaults filled in (`stroke` null: the default outline). */
export interface Look {
  text: string;
  stroke: string | null;
  strokeWidth: number;
  opacity: number;
  fontSize: number;
}

/** An unscaled frame, in canvas units. */
export interface Frame {
  w: number;
  h: number;
}

/** What a tap makes (the `shape` of a `snap` op, P13): anything left out is the server's choice. */
export interface ShapeSpec {
  kind?: ShapeKind;
  w?: number;
  h?: number;
  /** An HSB fill, or (1.7) a colour, which sets a new shape's h, s and b. */
  fill?: HSBColor | Color;
  hatch?: Hatch;
  sides?: number;
  points?: number;
  inner?: number;
  depth?: number;
  /** 1.7 (P26): the shape's text, at most 4,096 UTF-8 bytes. */
  text?: string;
  stroke?: Color;
  strokeWidth?: number;
  opacity?: number;
  fontSize?: number;
}

/** A connector's two ends in canvas units (P28). */
export interface ConnectorEnds {
  from: Point;
  to: Point;
}

/** Where `connectorFrame` lays a connector (P28). */
export interface ConnectorFrame {
  x: number;
  y: number;
  w: number;
  rotation: number;
}

export interface Point {
  x: number;
  y: number;
}

/** An axis-aligned box in canvas units. */
export interface Bounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** A circle of a fractal, in the shape's local frame. */
export interface Circle {
  x: number;
  y: number;
  r: number;
}

/** An affine map [a, b, c, d, tx, ty], as CoreGraphics: x' = a·x + c·y + tx, y' = b·x + d·y + ty. */
export type Affine = [number, number, number, number, number, number];

/** One axis of the grid: a number of divisions, or a pitch in canvas units. */
export type GridAxis = { divisions: number } | { pitch: number };

/** The welcome's `grid`: the canvas size and its spacing. */
export interface Grid {
  width: number;
  height: number;
  x: GridAxis;
  y: GridAxis;
}

/** The welcome's `snapping`: thresholds in canvas units at zoom 1, angles in radians. */
export interface Snapping {
  threshold: number;
  release: number;
  objects: boolean;
  grid: boolean;
  gaps?: boolean;
  angleStep: number;
  angleTolerance: number;
}

/** The welcome's `layout` (1.3), on a canvas made with a layout grid. */
export interface Layout {
  mode: 'flexible' | 'squareFromRows' | 'squareFromColumns';
  rows: number;
  columns: number;
  padding: number;
  cellWidth: number;
  cellHeight: number;
  /** 1.5: shapes stretch to fill their cell; absent or false, they keep their aspect ratio. */
  fill?: boolean;
}

/** A session as presence lists it (P11); `user` on a server that requires tokens. */
export interface SessionInfo {
  name: string;
  color: string;
  user?: string;
}

// ---------------------------------------------------------------------------------------------------
// Messages from the server (P3, P6–P12, P20)

export interface SessionEntry {
  session: number;
  name: string;
  color: string;
  user?: string;
}

export interface WelcomeMessage {
  type: 'welcome';
  protocol: number;
  revision: number;
  session: number;
  canvas: string;
  seq: number;
  epoch: string;
  resumed: boolean;
  /** 1.5: the session's effective role (absent from older servers). */
  role?: Role;
  /** 1.5: placements keep shapes inside the canvas (absent: true). */
  bounded?: boolean;
  grid: Grid;
  snapping: Snapping;
  layout?: Layout;
  shapes: Shape[];
  sessions: SessionEntry[];
  leases: Record<string, number>;
}

/** A guide (P9): an `x` guide is the vertical line x = at from y = from to y = to. */
export interface GuideEvent {
  type: 'guide';
  axis: 'x' | 'y';
  at: number;
  from: number;
  to: number;
  target: string;
}

/** Equal gaps (P9, 1.1): segments [from, to, at] of length `gap` along `axis`. */
export interface GapEvent {
  type: 'gap';
  axis: 'x' | 'y';
  gap: number;
  segments: [number, number, number][];
}

/** A snap engaged for this client's own gesture (P9). */
export interface HapticEvent {
  type: 'haptic';
  style: 'light';
  reason: 'edge' | 'grid' | 'angle' | 'gap' | 'anchor';
}

export type DeltaEvent = GuideEvent | GapEvent | HapticEvent;

/** A live delta's placement (1.4, P8): [id, x, y, w, h, scale, rotation, z]. */
export type Placement = [string, number, number, number, number, number, number, number];

export interface DeltaMessage {
  type: 'delta';
  seq: number;
  by: number;
  ops: string[];
  shapes?: Shape[];
  placed?: Placement[];
  removed?: string[];
  cleared?: boolean;
  events: DeltaEvent[];
  live: boolean;
}

export interface AckMessage {
  type: 'ack';
  id: string;
  seq: number;
  skipped?: { shape: string; code: string }[];
  /** The op changed nothing and committed nothing; `seq` is the canvas's current one (P6, P14). */
  unchanged?: boolean;
}

export type RejectCode =
  | 'unknown_shape' | 'shape_locked' | 'no_gesture' | 'out_of_bounds' | 'not_finite' | 'canvas_full' | 'bad_shape'
  | 'bad_shape_id' | 'out_of_range' | 'nothing_to_undo' | 'nothing_to_redo' | 'rate_limited' | 'forbidden' | 'unavailable'
  | 'layout_full' | 'locked' | 'bad_text' | 'bad_style';

export interface RejectMessage {
  type: 'reject';
  id: string;
  code: RejectCode;
  message: string;
}

export interface ErrorMessage {
  type: 'error';
  code: 'bad_json' | 'bad_message' | 'unknown_type' | 'unknown_op' | 'too_large' | 'binary_frame' | 'rate_limited';
  message: string;
  id?: string;
}

export interface PresenceMessage {
  type: 'presence';
  event: 'join' | 'leave' | 'lease';
  session: number;
  name: string;
  color: string;
  user?: string;
  sessions?: SessionEntry[];
  leases: Record<string, number>;
}

export interface CursorsMessage {
  type: 'cursors';
  cursors: { session: number; x?: number; y?: number }[];
}

export interface PongMessage {
  type: 'pong';
  t?: number | string;
}

export type ServerMessage =
  | WelcomeMessage | DeltaMessage | AckMessage | RejectMessage | ErrorMessage | PresenceMessage | CursorsMessage | PongMessage;

// ---------------------------------------------------------------------------------------------------
// Messages the client sends (P13, P12, P20, P21)

export type GestureKind = 'move' | 'scale' | 'rotate' | 'endpoint';
export type GesturePhase = 'begin' | 'update' | 'end';

/** A tap: the server makes the shape at the nearest grid point. */
export interface SnapOp {
  op: 'snap';
  x: number;
  y: number;
  shapeId?: string;
  shape?: ShapeSpec;
}

/**
 * Without `phase`, a one-shot move. Parameters are cumulative since the begin. `snap: false` (1.5): exactly by dx, dy.
 * A gesture names one `shape`, or (1.7, P29: a selection gesture, from `gesture` given several ids) 2–1,000 `shapes`.
 */
export interface MoveOp {
  op: 'move';
  shape?: string;
  shapes?: string[];
  phase?: GesturePhase;
  dx?: number;
  dy?: number;
  snap?: boolean;
}

/** A pinch: grows by `factor` and turns by `radians` about (ax, ay), by default the shape's centre; `shape`, or `shapes` as a move's. */
export interface ScaleOp {
  op: 'scale';
  shape?: string;
  shapes?: string[];
  phase?: GesturePhase;
  factor?: number;
  ax?: number;
  ay?: number;
  radians?: number;
}

/** A turn by `radians` about the centre; `shape`, or `shapes` as a move's. */
export interface RotateOp {
  op: 'rotate';
  shape?: string;
  shapes?: string[];
  phase?: GesturePhase;
  radians?: number;
}

export interface ClearOp {
  op: 'clear';
}

export interface DeleteOp {
  op: 'delete';
  shapes: string[];
}

export interface UndoOp {
  op: 'undo';
}

export interface RedoOp {
  op: 'redo';
}

/** Where an `order` puts its shapes (P25). */
export type StackMove = 'front' | 'back' | 'forward' | 'backward';

/** Restacks 1–1,000 shapes, all or none (1.6, P25). */
export interface OrderOp {
  op: 'order';
  shapes: string[];
  to: StackMove;
}

/** Locks or unlocks 1–1,000 shapes, all or none (1.6, P25). */
export interface LockOp {
  op: 'lock';
  shapes: string[];
  locked: boolean;
}

/** Styles 1–1,000 shapes, all or none (1.7, P26): at least one of the style fields. */
export interface StyleOp {
  op: 'style';
  shapes: string[];
  fill?: Color;
  stroke?: Color;
  strokeWidth?: number;
  opacity?: number;
  fontSize?: number;
}

/** Sets a shape's text (1.7, P26): one-shot without `phase`; a begin takes the lease for editing, updates keep it, the end commits. */
export interface TextOp {
  op: 'text';
  shape: string;
  text?: string;
  phase?: GesturePhase;
}

/** Puts 1–1,000 shapes, with every other member of their groups, in one new group of 2–1,000 (1.7, P27). */
export interface GroupOp {
  op: 'group';
  shapes: string[];
}

/** Dissolves every group one of 1–1,000 shapes is in (1.7, P27). */
export interface UngroupOp {
  op: 'ungroup';
  shapes: string[];
}

/** Copies 1–1,000 shapes one grid step right and down, above every shape, all or none (1.7, P27). */
export interface DuplicateOp {
  op: 'duplicate';
  shapes: string[];
  /** The copies' ids, one for each shape in the order first named; without them the server names the copies. */
  ids?: string[];
}

/**
 * What a `connect` makes (1.7, P28): a `line` or an `arrow` (the default), with its style and label; left
 * out, the author's last style. (op.json lists only `kind`; PROTOCOL.md's P13 table gives the rest.)
 */
export type ConnectorSpec = ShapeStyle & { kind?: 'line' | 'arrow'; text?: string };

/** Draws a connector from `from` to `to` (1.7, P28), committed as a `create`. */
export interface ConnectOp {
  op: 'connect';
  from: ConnectorEnd;
  to: ConnectorEnd;
  shapeId?: string;
  shape?: ConnectorSpec;
}

/** Drags one end of a connector (1.7, P28): a gesture under its lease like a move, `dx`, `dy` cumulative since the begin; one-shot without `phase`. */
export interface EndpointOp {
  op: 'endpoint';
  shape: string;
  end: ConnectorEndName;
  phase?: GesturePhase;
  dx?: number;
  dy?: number;
}

/** An operation as an app hands it to `send`: the client adds `type` and `id`. */
export type Op =
  | SnapOp | MoveOp | ScaleOp | RotateOp | ClearOp | DeleteOp | UndoOp | RedoOp | OrderOp | LockOp | StyleOp | TextOp
  | GroupOp | UngroupOp | DuplicateOp | ConnectOp | EndpointOp;

/** What every op carries on the wire besides its own fields. */
export interface OpEnvelope {
  type: 'op';
  id: string;
}

export type OpMessage = OpEnvelope & Op;

/** Where this pointer is, or (no x and y) that it left the canvas (P20). */
export interface CursorMessage {
  type: 'cursor';
  x?: number;
  y?: number;
}

/** The client's zoom changed (P21). */
export interface ViewMessage {
  type: 'view';
  zoom: number;
}

/** A round-trip probe (P12); the client sends `performance.now()` as `t`. */
export interface PingMessage {
  type: 'ping';
  t?: number;
}

/** Every message the client writes to the socket. */
export type ClientMessage = OpMessage | CursorMessage | ViewMessage | PingMessage;

/** The parameters of a gesture, cumulative since its begin: move (dx, dy), scale (factor, ax, ay, radians), rotate (radians). */
export interface GestureParams {
  dx?: number;
  dy?: number;
  factor?: number;
  ax?: number;
  ay?: number;
  radians?: number;
}

// ---------------------------------------------------------------------------------------------------
// What the replica made of a message, and the client's events

export interface WelcomeChange {
  kind: 'welcome';
  resumed: boolean;
}

export interface DeltaChange {
  kind: 'delta';
  seq: number;
  live: boolean;
  haptics: HapticEvent[];
  by: number;
  ops: string[];
  /** The ids of the shapes the delta set. */
  shapes: string[];
}

export interface PresenceChange {
  kind: 'presence';
  event: 'join' | 'leave' | 'lease';
  session: number;
}

export interface CursorsChange {
  kind: 'cursors';
}

export type ReplicaChange = WelcomeChange | DeltaChange | PresenceChange | CursorsChange;

/**
 * 'connecting' before the first welcome, 'connected', 'offline' while waiting to reconnect. The others stop
 * reconnecting: 'unauthorized' and 'forbidden' (the server refused the token or the page's origin),
 * 'expired' (the token ran out: until `setToken` or `refreshToken` gives a new one), 'deleted' (close
 * 4004), 'not_found' (a viewer's join of a canvas that is not stored), 'storage_full' (4507), 'closed'
 * (`close()`).
 */
export type ClientState =
  | 'connecting' | 'connected' | 'offline' | 'unauthorized' | 'forbidden' | 'expired' | 'deleted' | 'not_found' | 'storage_full' | 'closed';

/** The reasons of an HTTP 401 (P1). */
export type UnauthorizedReason =
  | 'missing' | 'malformed' | 'bad_signature' | 'expired' | 'not_yet_valid' | 'wrong_canvas' | 'wrong_audience' | 'wrong_issuer';

/** What a `problem` is about: a 401's reason (or 'unauthorized' without one), a 403's ('origin', else 'forbidden'), or a close code's. */
export type ProblemCode =
  | UnauthorizedReason | 'unauthorized' | 'origin' | 'forbidden' | 'token_expired' | 'canvas_deleted' | 'viewer_cannot_create' | 'storage_full';

/** What is wrong, in words that also say what to do: `client.problem`. */
export interface Problem {
  code: ProblemCode | string;
  message: string;
}

/** The canvas was replaced by an import (close 4005): the client starts over on it; `dropped` ops were never answered and are not sent. */
export interface ReplacedNotice {
  dropped: number;
}

/** The role of a session: a viewer's ops are refused, so the client sends none. */
export type Role = 'editor' | 'viewer';

/** A haptic of this client's own snap, with the ids of the shapes its delta set. */
export interface HapticNotice extends HapticEvent {
  shapes: string[];
}

/** `change` follows anything that changes what a board draws: a server message's type, 'state' or 'gesture'. */
export interface ChangeNotice {
  kind: 'state' | 'gesture' | 'welcome' | 'delta' | 'ack' | 'reject' | 'error' | 'presence' | 'cursors' | 'pong';
}

/** The events of `SnapboardClient.on`, and the value each listener gets. */
export interface SnapboardClientEvents {
  state: ClientState;
  welcome: WelcomeChange;
  delta: DeltaChange;
  guides: GuideEvent[];
  haptic: HapticNotice;
  presence: PresenceChange;
  cursors: Map<number, Point>;
  ack: AckMessage;
  reject: RejectMessage;
  error: ErrorMessage;
  pong: number | null;
  replaced: ReplacedNotice;
  change: ChangeNotice;
}

// ---------------------------------------------------------------------------------------------------
// The client

/**
 * What the client needs of a WebSocket: the browser's, Node's (`--experimental-websocket` on Node 20), or
 * `ws`'s. The client reads `event.data` (a string) in `onmessage` and `event.code` in `onclose`; the events
 * are `any` so that each of those constructors is assignable here.
 */
export interface WebSocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number): void;
  onmessage: ((event: any) => void) | null;
  onclose: ((event: any) => void) | null;
  onerror: ((event: any) => void) | null;
}

export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface SnapboardClientOptions {
  /** ws(s)://host/v1/canvases/{canvas}, without `client` or `since`. */
  url: string;
  /** The display name for presence. */
  name?: string;
  /** An access token, for a server that requires one (sent as the `token` parameter). */
  token?: string;
  /** A stable id for exactly-once across reconnects (default: random). */
  clientId?: string;
  /** The initial zoom, 0.01–100 (default 1). */
  zoom?: number;
  /** A WebSocket constructor (default: globalThis.WebSocket). */
  WebSocket?: WebSocketConstructor;
  /** Runs a callback before the next frame (default: requestAnimationFrame, else a 16 ms timer). */
  schedule?: (fn: () => void) => unknown;
  /** Random numbers in [0, 1) for the backoff's jitter (default: Math.random). */
  random?: () => number;
  /** Seconds between round-trip probes (default 5; 0: none). */
  pingInterval?: number;
  /** Seconds a connection may take to open before it is given up and tried again (default 10). */
  connectTimeout?: number;
  /** Called when the token expired (or was refused as expired): resolves to a new token, which reconnects, or null. */
  refreshToken?: () => Promise<string | null> | string | null;
  /** A fetch function for the access probe and `api` (default: globalThis.fetch). */
  fetch?: typeof fetch;
}

/** What `send` may be told besides the op. */
export interface SendOptions {
  /** Makes the op to send instead after a reconnect (same id), from the replica as it is then. */
  resendAs?: (replica: Replica) => Op;
  /** The shape as the op would leave it, drawn until the server answers. */
  offlinePreview?: Shape | null;
}

/** One logical connection to a canvas that reconnects with backoff, resumes (P16) and resends exactly once (P15). */
export declare class SnapboardClient {
  constructor(options: SnapboardClientOptions);
  readonly url: string;
  readonly name: string | undefined;
  /** The access token; replace it with `setToken`. */
  readonly token: string | undefined;
  readonly refreshToken: (() => Promise<string | null> | string | null) | undefined;
  readonly clientId: string;
  /** The zoom the server scales snapping by; change it with `setZoom`. */
  readonly zoom: number;
  readonly WebSocket: WebSocketConstructor;
  readonly schedule: (fn: () => void) => unknown;
  readonly random: () => number;
  readonly pingInterval: number;
  readonly connectTimeout: number;
  /** The copy of the canvas, kept from the server's messages. */
  readonly replica: Replica;
  /** The committing ops sent and not yet answered. */
  readonly pending: PendingOps;
  readonly policy: ReconnectPolicy;
  readonly state: ClientState;
  /** Null, or what is wrong in words and what to do; set with the state that stops reconnecting. */
  readonly problem: Problem | null;
  /** The session's role from the welcome; null before the first welcome. */
  readonly role: Role | null;
  /** The server's HTTP API with this client's token, or null when `url` names no canvas. */
  readonly api: SnapboardAPI | null;
  /** The canvas id in `url`, or null. */
  readonly canvas: string | null;
  /** The role is editor and the client has not stopped: ops go now or once reconnected. */
  get canEdit(): boolean;
  /** Not connected: presence, cursors and the round trip are as last known. */
  get stale(): boolean;
  /** The last measured round trip in milliseconds, or null before the first pong. */
  readonly rtt: number | null;
  /** The gestures in progress. */
  readonly gestures: Set<Gesture>;
  /** Shapes as ops sent offline would leave them, by op id, until the server answers (a selection gesture's: its shapes). */
  readonly offlineEdits: Map<string, Shape | Shape[]>;
  // internal: listeners, link, connection, cursorAt, cursorScheduled, catchUpTo, textEdits
  /** Calls `fn(value)` on every `event`; returns a function that stops it. */
  on<E extends keyof SnapboardClientEvents>(event: E, fn: (value: SnapboardClientEvents[E]) => void): () => void;
  /** Calls the listeners of `event` (the library's parts use it; an app need not). */
  emit<E extends keyof SnapboardClientEvents>(event: E, value: SnapboardClientEvents[E]): void;
  /** Opens the connection; it reconnects by itself until `close()`, or until a state that stops it. */
  connect(): void;
  /** Closes the connection for good (state 'closed'); `close(1001)` on pagehide. A code the WebSocket API refuses (not 1000 or 3000–4999) goes as 1000. */
  close(code?: number): void;
  /** Replaces the access token; a client stopped for its token connects again at once. */
  setToken(token: string | null | undefined): void;
  /** Sends an op with a fresh id, tracked until answered (offline, committing ops wait); returns the id, or null when the client may not edit. */
  send(op: Op, options?: SendOptions): string | null;
  /** A tap at (x, y) in canvas units becomes a shape at the nearest grid point (offline: drawn as predicted); returns the op id or null. */
  snap(x: number, y: number, shape?: ShapeSpec): string | null;
  /** Moves each shape by exactly (dx, dy), one one-shot move each, unsnapped unless `snap`; returns the op ids. */
  nudge(shapeIds: Iterable<string>, dx: number, dy: number, options?: NudgeOptions): string[];
  /** Removes every shape of the canvas. */
  clear(): string | null;
  /** Removes shapes by id, all or none. */
  delete(shapes: Iterable<string>): string | null;
  /** Restacks shapes, all or none (P25): to the front or back, or past the nearest overlapping shape; returns the op id or null. */
  order(shapeIds: Iterable<string>, to: StackMove): string | null;
  /** Locks (true) or unlocks (false) shapes, all or none (P25); returns the op id or null. */
  lock(shapeIds: Iterable<string>, locked: boolean): string | null;
  /** Puts shapes, with the other members of their groups, in one new group (1.7, P27); returns the op id or null. */
  group(shapeIds: Iterable<string>): string | null;
  /** Dissolves every group one of the shapes is in (1.7, P27); returns the op id or null. */
  ungroup(shapeIds: Iterable<string>): string | null;
  /** Copies shapes one grid step right and down, above every shape, all or none (1.7, P27), named by `ids` when given; returns the op id or null. */
  duplicate(shapeIds: Iterable<string>, options?: DuplicateOptions): string | null;
  /** Styles shapes, all or none, in one `style` op (1.7, P26); null when the client may not edit or `style` gives no field. */
  style(shapeIds: Iterable<string>, style: ShapeStyle): string | null;
  /** Sets a shape's text (no phase), or edits it: 'begin' takes its lease, 'update' sends the draft (at least every 2 s), 'end' commits (1.7, P26). */
  text(shapeId: string, text?: string, phase?: GesturePhase): string | null;
  /** Reverts this client's last change that still has something to revert (P22). */
  undo(): string | null;
  /** Re-applies what this client's last undo reverted (P22). */
  redo(): string | null;
  /** Draws a connector from `from` to `to`, points or bindings (1.7, P28, the `connect` op), an arrow unless `options.kind` says `line`; returns the op id or null. */
  connector(from: ConnectorEnd, to: ConnectorEnd, options?: ConnectOptions): string | null;
  /** Begins dragging one end of a connector (1.7, P28): `update({dx, dy})` as it goes (cumulative), then `end()`; one reconnect commit. */
  endpoint(shapeId: string, end: ConnectorEndName): Gesture;
  /**
   * Begins a gesture on a shape: call `update(params)` as it goes, then `end()`; an `endpoint` names its end in `fields`.
   * A move, scale or rotate given 2–1,000 ids is a selection gesture (1.7, P29): `shapes` on the wire, one commit, one undo step.
   */
  gesture(kind: GestureKind, shape: string | Iterable<string>, fields?: GestureFields): Gesture;
  /** Where this pointer is (canvas units), or, without arguments, that it left; at most one message a frame. */
  cursor(x?: number, y?: number): void;
  /** The zoom changed (clamped to 0.01–100): the server scales snapping thresholds by it (P21). */
  setZoom(zoom: number): void;
  /** Measures the round trip; the pong sets `rtt`. */
  ping(): void;
  /** Shapes bottom to top, with what this client did offline shown as predicted (shapes snapped offline on top). */
  drawingOrder(): Shape[];
  /** One shape as `drawingOrder` draws it, or undefined. */
  shapeAsDrawn(id: string): Shape | undefined;
}

/** What `connector` may be told (1.7, P28): the kind, a name for the connector, its style and label. */
export interface ConnectOptions extends ShapeStyle {
  /** `line` or `arrow` (the default: its head at `to`). */
  kind?: 'line' | 'arrow';
  /** Names the connector, as a snap's `shapeId` (free, 1–64 of [A-Za-z0-9_-], else `bad_shape_id`). */
  shapeId?: string;
  /** Its label, drawn on its middle. */
  text?: string;
}

/** What a gesture's every op carries besides its parameters: an `endpoint`'s end (P28). */
export interface GestureFields {
  end?: ConnectorEndName;
}

/** What `duplicate` may be told. */
export interface DuplicateOptions {
  /** The copies' ids, one for each shape in the order first named: free, 1–64 of [A-Za-z0-9_-], none repeated (else `bad_shape_id`). */
  ids?: Iterable<string>;
}

/** What `nudge` may be told. */
export interface NudgeOptions {
  /** Snap the moved shapes as a drag would (default false: exactly by dx, dy). */
  snap?: boolean;
}

/**
 * One gesture on one shape, or on a selection of 2–1,000 shapes (1.7, P29), from `SnapboardClient.gesture`:
 * updates coalesced to one a frame, the rest resent after a reconnect. A refused selection begin ends it.
 */
export declare class Gesture {
  constructor(client: SnapboardClient, kind: GestureKind, shape: string | Iterable<string>, fields?: GestureFields);
  readonly client: SnapboardClient;
  readonly kind: GestureKind;
  /** The id of the shape; of a selection gesture, its first shape's. */
  readonly shape: string;
  /** A selection gesture's shape ids (two or more), or null for a gesture on one shape. */
  readonly shapes: string[] | null;
  /** What every op of the gesture carries besides its parameters: an endpoint's `end`. */
  readonly fields: GestureFields;
  /** The parameters so far, cumulative since the begin. */
  readonly params: GestureParams;
  readonly ended: boolean;
  /** The shape as it was at the begin, or null when the replica did not hold it. */
  readonly origin: Shape | null;
  /** A selection gesture's shapes as they were at the begin (those the replica held), or null. */
  readonly origins: Shape[] | null;
  /** The id of the selection begin last sent, or null. */
  readonly beginId: string | null;
  /** The code the server refused a selection gesture's begin with (`shape_locked`, `locked`, …), or null. */
  readonly refused: RejectCode | null;
  // internal: base, connection, scheduled
  /** Takes the parameters so far (cumulative since the begin); at most one update a frame goes out. */
  update(params: GestureParams): void;
  /** Ends the gesture; returns the committing op's id, or null when it had ended already or the client may not edit. */
  end(params?: GestureParams): string | null;
  /** The server refused the selection begin `id` with `code`: the gesture ends; whether `id` was its begin. */
  refuse(id: string, code: RejectCode): boolean;
  /** The shape as the gesture would leave it, unsnapped: drawn while the server cannot be asked; null for a selection. */
  get preview(): Shape | null;
  /** Every shape as the gesture would leave it, unsnapped: a selection's all, else `preview` or none. */
  get previews(): Shape[];
}

// ---------------------------------------------------------------------------------------------------
// The parts the client is made of, pure

/** A client's copy of a canvas, kept by applying welcome, delta, presence and cursors messages. */
export declare class Replica {
  constructor();
  /** The seq of the last committed op held; -1 before the first welcome. */
  seq: number;
  /** The run of the history `seq` belongs to (P16). */
  epoch: string | null;
  session: number | null;
  canvas: string | null;
  shapes: Map<string, Shape>;
  guides: GuideEvent[];
  gaps: GapEvent[];
  sessions: Map<number, SessionInfo>;
  /** Shape id → the session holding its gesture lease. */
  leases: Record<string, number>;
  /** Other sessions' pointers, by session. */
  cursors: Map<number, Point>;
  width: number;
  height: number;
  grid: Grid | null;
  snapping: Snapping | null;
  /** The cells of a layout canvas (the welcome's `layout`), or null. */
  layout: Layout | null;
  /** Whether placements keep shapes inside the canvas (the welcome's `bounded`; true when absent). */
  bounded: boolean;
  /** The committed state under each shape a live delta changed (null: it did not exist); a reconnect restores it. */
  liveBase: Map<string, Shape | null>;
  /** True when the shape with `id` is locked (P25). */
  isLocked(id: string): boolean;
  /** The members of the group shape `id` is in, itself among them, in drawing order (P27): `[id]` when in none, `[]` when not held. */
  groupOf(id: string): string[];
  /** The text and style of the shape with `id`, defaults filled in (P26); undefined for a shape it does not hold. */
  lookOf(id: string): Look | undefined;
  /** Shapes bottom to top (z, then id). */
  drawingOrder(): Shape[];
  /** Applies one server message; returns what it did, or null for a message it does not keep. */
  apply(m: ServerMessage): ReplicaChange | null;
}

/** An op sent and not yet answered. */
export interface PendingOp {
  id: string;
  op: OpMessage;
  resendAs?: (replica: Replica) => Op;
}

/** Does this op commit (and so get an ack)? A snap, a clear, a gesture's end or a one-shot gesture. */
export declare function commits(op: Op): boolean;

/** The committing ops sent and not yet answered, in order, resent after a reconnect. */
export declare class PendingOps {
  constructor(prefix: string);
  readonly prefix: string;
  /** The counter of the next id. */
  next: number;
  readonly ops: PendingOp[];
  /** A fresh op id: the prefix and a counter. */
  makeId(): string;
  /** Tracks a committing op. */
  sent(op: OpMessage, resendAs?: (replica: Replica) => Op): void;
  /** Forgets an answered op; returns it, or undefined when it was not pending. */
  answered(id: string): OpMessage | undefined;
  /** What to send again after reconnecting, in order. */
  toResend(replica: Replica): OpMessage[];
}

/** Exponential backoff with jitter between reconnect attempts (seconds), reset by a connection. */
export declare class ReconnectPolicy {
  constructor(base?: number, cap?: number);
  base: number;
  cap: number;
  attempt: number;
  /** Seconds to wait before the next attempt, given a random number in [0, 1). */
  nextDelay(random: number): number;
  /** A connection succeeded: the next wait starts from `base` again. */
  connected(): void;
}

/** The shape as a gesture's parameters would leave it, before snapping. */
export declare function predict(shape: Shape, kind: GestureKind, p: GestureParams, fields?: GestureFields): Shape;
/** A selection's shapes (P29) as a gesture's parameters would leave them, before snapping: a scale's anchor by default, and a rotate's centre, the centre of their union bounds. */
export declare function predictSelection(origins: Shape[], kind: GestureKind, p: GestureParams): Shape[];
/** The parameters of a gesture that took `origin` to `current` (of an endpoint, of its end `fields.end`). */
export declare function progress(kind: GestureKind, origin: Shape, current: Shape, fields?: GestureFields): GestureParams;
/** What is left of a gesture's cumulative parameters once `sent` of them reached the server. */
export declare function remainder(kind: GestureKind, total: GestureParams, sent: GestureParams): GestureParams;
/** The shape a snap op would make on a canvas (the fill is the server's to pick), on a layout in the free cell nearest the tap; null when every cell is taken. `id` names it when the op does not. */
export declare function predictSnap(canvas: Pick<Replica, 'width' | 'height' | 'grid' | 'layout' | 'bounded' | 'shapes'>, op: SnapOp, id: string): Shape | null;

// ---------------------------------------------------------------------------------------------------
// Geometry, as SnapboardCore outlines shapes

/** Straight segments per full circle in `contours`. */
export declare const circleSegments: 48;
/** The exact axis-aligned bounds of the scaled and rotated shape. */
export declare function bounds(shape: Shape): Bounds;
/** The frame of a connector from `from` to `to` at `scale` (P28): its middle, unscaled length and direction in [0, 2π). */
export declare function connectorFrame(from: Point, to: Point, scale?: number): ConnectorFrame;
/** A connector's ends in canvas units (P28): its frame's left middle (`from`) and right middle (`to`), carried by scale and rotation. */
export declare function endpoints(shape: Shape): ConnectorEnds;
/** Whether a shape is a connector, a `line` or an `arrow` (1.7, P28). */
export declare function isConnector(shape: Shape | null | undefined): boolean;
/** True when `p` lies inside the outline (even-odd): what a tap hits. */
export declare function contains(shape: Shape, p: Point): boolean;
/** The outline in canvas space, as closed polygons. */
export declare function contours(shape: Shape): Point[][];
/** The corner radius of a rounded rectangle with this unscaled frame. */
export declare function cornerRadius(w: number, h: number): number;
/** An HSB(A) fill as a CSS `rgba(…)` colour; `alpha` defaults to the fill's. */
export declare function cssColor(fill: HSBColor, alpha?: number): string;
/** Every circle of a fractal in the local frame, level by level. */
export declare function fractalCircles(w: number, h: number, depth: number): Circle[];
/** The radius of a fractal's first circle. */
export declare function fractalRadius(w: number, h: number, depth: number): number;
/** The interior gridline positions of one axis. */
export declare function gridLines(length: number, axis: GridAxis | null | undefined): number[];
/** The outline vertices in the local frame: centred, unscaled, unrotated, y down. */
export declare function localVertices(shape: Shape): Point[];
/** The line nearest to `v` (GridAxis.snap), or `v` when there are none. */
export declare function snapToLines(lines: readonly number[], v: number): number;
/** The map from the shape's local frame to canvas space. */
export declare function transform(shape: Shape): Affine;
/** The turn from angle `from` to angle `to`, in (-π, π]. */
export declare function turn(from: number, to: number): number;

// ---------------------------------------------------------------------------------------------------
// How shapes look (1.7, P26)

/** The palette: each name's `#rrggbb`, in the order a picker shows them. */
export declare const palette: Readonly<Record<PaletteName, string>>;
/** A shape's text and style where its wire form leaves them out. */
export declare const lookDefaults: Readonly<Look>;
/** The [least, most] of each style number; outside, the server refuses `out_of_range`. */
export declare const styleRanges: Readonly<{ strokeWidth: [number, number]; opacity: [number, number]; fontSize: [number, number] }>;
/** A colour (`#rrggbb` of either case, or a palette name) as lowercase `#rrggbb`; null for one the server refuses. */
export declare function colorHex(color: unknown): string | null;
/** The HSB fill a colour sets, with alpha `a`: the sectors of `cssColor` give exactly that colour back; null for a bad colour. */
export declare function fillFromColor(color: string, a?: number): HSBColor | null;
/** The `#rrggbb` an HSB fill is drawn as (alpha left out). */
export declare function hexOfFill(fill: HSBColor): string;
/** A shape's text and style, defaults filled in. */
export declare function lookOf(shape: Partial<Shape> | null | undefined): Look;
/** The frame a snap of `kind` makes when its spec gives no size. */
export declare function defaultFrame(kind: ShapeKind): Frame;

// ---------------------------------------------------------------------------------------------------
// The view: pan and zoom

/** The smallest zoom a Viewport takes, in CSS pixels per canvas unit. */
export declare const minScale: 0.05;
/** The largest zoom a Viewport takes. */
export declare const maxScale: 20;

/** Where the canvas is on a screen: `scale` CSS pixels per canvas unit, then offset by (ox, oy). */
export declare class Viewport {
  constructor(scale?: number, ox?: number, oy?: number);
  scale: number;
  ox: number;
  oy: number;
  /** A canvas point in CSS pixels. */
  toScreen(p: Point): Point;
  /** A point in CSS pixels in canvas units. */
  toCanvas(s: Point): Point;
  /** Shows the whole width × height canvas centred in a cw × ch pixel area, `margin` pixels clear. */
  fit(width: number, height: number, cw: number, ch: number, margin?: number): void;
  /** Zooms by `factor` keeping the canvas point under (sx, sy) where it is. */
  zoomAbout(factor: number, sx: number, sy: number): void;
  /** Sets the scale so that `anchor` (canvas units) lands on (sx, sy). */
  place(anchor: Point, scale: number, sx: number, sy: number): void;
  /** Moves the view by (dx, dy) CSS pixels. */
  pan(dx: number, dy: number): void;
}

export interface Span {
  distance: number;
  mid: Point;
  angle: number;
}

/** Distance, midpoint and angle of two pointers. */
export declare function span(a: Point, b: Point): Span;

// ---------------------------------------------------------------------------------------------------
// The protocol

/** The protocol version this library speaks. */
export declare const protocolVersion: 1;
/** The revision of version 1 the library reads (asked for with `revision=`). */
export declare const REVISION: 7;
/** The close code for an access token that expired (P1). */
export declare const CLOSE_TOKEN_EXPIRED: 4001;
/** The close code for a canvas that was deleted (P19), or a viewer's join of one not stored (P1). */
export declare const CLOSE_CANVAS_DELETED: 4004;
/** The close code for a canvas replaced by an import (P19): reconnect without since. */
export declare const CLOSE_CANVAS_REPLACED: 4005;
/** The close code for a join that would create a canvas on a server that stores as many as it may (P1). */
export declare const CLOSE_STORAGE_FULL: 4507;
/** A problem in words: what is wrong and what to do; a code without words of its own gets those of 'unauthorized'. */
export declare function problemFor(code: ProblemCode | string): Problem;

// ---------------------------------------------------------------------------------------------------
// The HTTP API (PROTOCOL.md, "HTTP"; Protocol/openapi.yaml)

export interface SnapboardAPIOptions {
  /** The server, `http(s)://host:port` (default: '', the page's own origin). */
  base?: string;
  /** An access token or the admin token, sent as `Authorization: Bearer`. */
  token?: string;
  /** A fetch function (default: globalThis.fetch). */
  fetch?: typeof fetch;
}

/** What a token may do on a canvas (`GET /v1/canvases/{id}/access`). */
export interface AccessInfo {
  canvas: string;
  role: Role;
  user: string | null;
  name: string | null;
  /** Seconds since 1970, or null for no token. */
  expiresAt: number | null;
  /** False on a server that requires no tokens. */
  tokens: boolean;
}

export interface CanvasSummary {
  id: string;
  seq: number;
  changedAt: number | null;
  loaded: boolean;
  shapes?: number;
}

/** A page of the canvas listing; `next` is the `after` of the next page. */
export interface CanvasList {
  canvases: CanvasSummary[];
  next: string | null;
}

export interface ListCanvasesOptions {
  prefix?: string;
  after?: string;
  limit?: number;
}

export interface MintTokenRequest {
  /** A canvas id, or a prefix ending in `*`. */
  canvas: string;
  /** Default 'viewer'. */
  role?: Role;
  /** Seconds, 60–2,592,000 (the server's default: 604,800). */
  ttl?: number;
  /** The display name others see. */
  name?: string;
  /** Who the token is for. */
  sub?: string;
}

export interface MintedToken {
  token: string;
  canvas: string;
  role: Role;
  expiresAt: number;
  /** `/c/ID?token=JWT` for a plain canvas id, else null. */
  link: string | null;
}

export interface HistoryOptions {
  after?: number;
  limit?: number;
}

export interface HistoryEntry {
  seq: number;
  at: number | null;
  client: string | null;
  /** The author's display name when it committed; null for the server's commits and older logs. */
  name: string | null;
  opId: string | null;
  undoes?: number;
  redoes?: number;
  op: Record<string, unknown>;
}

export interface HistoryPage {
  canvas: string;
  oldest: number;
  ops: HistoryEntry[];
  next: number | null;
}

/** A refused or failed request: `status` 0 when the server could not be reached; `code` the body's `error`. */
export declare class APIError extends Error {
  constructor(status: number, code: string, reason: string | null, message: string);
  readonly name: 'APIError';
  readonly status: number;
  /** The body's `error`, `network` (no answer), `bad_response`, or `http_STATUS` for a body that is not the server's. */
  readonly code: string;
  /** A 401's or 403's `reason`, else null. */
  readonly reason: string | null;
}

/** The HTTP API of one server; each method resolves to the parsed body or throws an `APIError`. */
export declare class SnapboardAPI {
  constructor(options?: SnapboardAPIOptions);
  readonly base: string;
  token: string | undefined;
  readonly fetch: typeof fetch;
  /** What the token may do on `canvas`. */
  access(canvas: string): Promise<AccessInfo>;
  /** The canvases the token may see, a page at a time. */
  listCanvases(options?: ListCanvasesOptions): Promise<CanvasList>;
  /** Mints an access token (a server with a token secret; the admin token, or an editor's token that covers the canvas). */
  mintToken(request: MintTokenRequest): Promise<MintedToken>;
  /** The logged commits after `after`, oldest first. */
  history(canvas: string, options?: HistoryOptions): Promise<HistoryPage>;
}
