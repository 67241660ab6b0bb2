// The ops a client sent and the server has not answered yet, and which of them wait for an answer.

/** Does this op commit (and so get an ack)? A snap, a clear, a gesture's end or a one-shot gesture. */
export function commits(op) {
  return op.op === 'snap' || op.op === 'clear' || op.phase === undefined || op.phase === 'end';
}

/**
 * The ops sent and not yet answered, in order. Committing ops stay until acked or rejected and are sent
 * again after a reconnect, which exactly-once (P15) makes safe; begins and updates are dropped then.
 */
export class PendingOps {
  constructor(prefix) {
    this.prefix = prefix;
    this.next = 1;
    /** @type {{id: string, op: object}[]} */
    this.ops = [];
  }

  /** A fresh op id: the prefix (unique per client and page load) and a counter. */
  makeId() {
    return `${this.prefix}-${this.next++}`;
  }

  /** Tracks a committing op; `resendAs(replica)` makes what to send instead after a reconnect (same id). */
  sent(op, resendAs) {
    this.ops.push({ id: op.id, op, resendAs });
  }

  /** Forgets an answered op; returns it, or undefined when it was not pending. */
  answered(id) {
    const i = this.ops.findIndex((p) => p.id === id);
    return i < 0 ? undefined : this.ops.splice(i, 1)[0].op;
  }

  /** What to send again after reconnecting, in order: each op, or what its `resendAs(replica)` makes of it now. */
  toResend(replica) {
    return this.ops.map((p) => (p.resendAs ? { ...p.resendAs(replica), type: 'op', id: p.id } : p.op));
  }
}
