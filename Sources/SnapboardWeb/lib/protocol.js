// What the library speaks of the protocol (PROTOCOL.md is the contract): its version, the revision of
// it this library reads, and the close codes the client treats apart from a drop.

/** The protocol version this library speaks. */
export const protocolVersion = 1;
/** The close code for an access token that expired (PROTOCOL.md, P1). */
export const CLOSE_TOKEN_EXPIRED = 4001;
/** The close code for a canvas that was deleted (PROTOCOL.md, P19): reconnecting would start a new one. */
export const CLOSE_CANVAS_DELETED = 4004;
/** The close code for a canvas that was replaced by an import (PROTOCOL.md, P19): reconnect without since. */
export const CLOSE_CANVAS_REPLACED = 4005;
/** The close code for a join that would create a canvas on a server that stores as many as it may (P1). */
export const CLOSE_STORAGE_FULL = 4507;

/**
 * The revision of version 1 this library reads: 2 takes joins and leaves as changes (PROTOCOL.md, P11),
 * 4 takes live deltas as placements (P8), 5 reads the welcome's role and bounded (P3), 6 knows the
 * `order` and `lock` ops and a shape's `locked` (P25), 7 knows the `style` and `text` ops, the `text` and
 * `note` kinds and a shape's text and style (P26), and the `group`, `ungroup` and `duplicate` ops and a
 * shape's `group` (P27).
 */
export const REVISION = 7;
