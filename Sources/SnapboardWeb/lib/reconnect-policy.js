// How long a client waits before it connects again.

/** Exponential backoff with jitter between reconnect attempts, reset by a successful connection. */
export class ReconnectPolicy {
  constructor(base = 0.25, cap = 8) {
    this.base = base;
    this.cap = cap;
    this.attempt = 0;
  }

  /** Seconds to wait before the next attempt, given a random number in [0, 1). */
  nextDelay(random) {
    const delay = Math.min(this.cap, this.base * 2 ** Math.min(this.attempt, 16)) * (0.5 + random / 2);
    this.attempt += 1;
    return delay;
  }

  /** A connection succeeded: the next wait starts from `base` again. */
  connected() {
    this.attempt = 0;
  }
}
