/**
 * The Snapboard JavaScript client library: ES modules with no build step and no dependencies. This file
 * is its public API; everything else in `lib/` is reached through it. PROTOCOL.md is the contract.
 *
 * An app imports it from the server (`/web/lib/index.js`, or `/web/snapboard.js`, the same file) or
 * vendors the `lib/` folder:
 *
 * ```js
 * import { SnapboardClient } from 'https://snapboard.example/web/lib/index.js';
 * const client = new SnapboardClient({ url: 'wss://snapboard.example/v1/canvases/demo', name: 'Ada' });
 * client.on('change', () => redraw(client.drawingOrder()));
 * client.on('state', () => showProblem(client.problem?.message));
 * client.connect();
 * ```
 *
 * @module snapboard
 */

// The connection: one logical connection to a canvas that reconnects and resumes by itself.
export { SnapboardClient } from './client.js';
export { Gesture } from './gesture.js';
export {
  CLOSE_CANVAS_DELETED, CLOSE_CANVAS_REPLACED, CLOSE_STORAGE_FULL, CLOSE_TOKEN_EXPIRED, protocolVersion, REVISION,
} from './protocol.js';
export { problemFor } from './problems.js';

// The server's HTTP API: access, the canvas listing, access links, history.
export { APIError, SnapboardAPI } from './api.js';

// The parts the client is made of, pure, for apps that keep their own connection.
export { Replica } from './replica.js';
export { commits, PendingOps } from './pending-ops.js';
export { ReconnectPolicy } from './reconnect-policy.js';
export { predict, predictSelection, progress, remainder } from './gesture-math.js';
export { predictSnap } from './prediction.js';

// How shapes look (1.7): the palette, colours, and a shape's text and style with their defaults.
export { colorHex, defaultFrame, fillFromColor, hexOfFill, lookDefaults, lookOf, palette, styleRanges } from './style.js';

// Shapes as SnapboardCore outlines them, a connector's ends (P28), and the grid.
export {
  bounds, circleSegments, connectorFrame, contains, contours, cornerRadius, cssColor, endpoints, fractalCircles, fractalRadius,
  gridLines, isConnector, localVertices, snapToLines, transform, turn,
} from './geometry.js';

// The view of a canvas on a screen: pan and zoom.
export { maxScale, minScale, span, Viewport } from './viewport.js';
