/// WebSocket close codes the server uses.
public enum CloseCode {
    /// The server is shutting down (draining for a restart): reconnect. Not 1012 ("service restart"):
    /// libwebsockets 4.1's clients take that code for invalid and close with 1002 instead.
    public static let goingAway: UInt16 = 1001
    /// The client kept sending invalid messages.
    public static let policyViolation: UInt16 = 1008
    /// A message was larger than the limit.
    public static let messageTooBig: UInt16 = 1009
    /// The server cannot serve the canvas right now (its storage failed).
    public static let unavailable: UInt16 = 1011
    /// The client fell too far behind; reconnect with `since` to resume.
    public static let resume: UInt16 = 4000
    /// The session's access token expired; reconnect with a fresh one.
    public static let tokenExpired: UInt16 = 4001
    /// The canvas was deleted (`DELETE /v1/canvases/{id}`, 1.3), or a join that may not create a canvas (a
    /// viewer's) named one that does not exist: do not reconnect.
    public static let canvasDeleted: UInt16 = 4004
    /// The canvas was replaced by an import (`PUT /v1/canvases/{id}`, 1.3): reconnect, without `since`.
    public static let canvasReplaced: UInt16 = 4005
    /// The join would create a canvas, and the server already stores as many as it may
    /// (`--max-stored-canvases`): none is created.
    public static let storageFull: UInt16 = 4507
}
