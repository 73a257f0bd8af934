// Politeness per host: at most `concurrency` requests in flight to one host, starts at least
// `intervalMs` apart, and none at all while the host has asked us to wait (a 429/503 Retry-After).
// A paused host fails its jobs at once instead of holding them (a fetch should not sit for minutes
// in a queue when the caller can try another gateway or reschedule with the wait it is given),
// unless the pause ends within `waitUnderMs`: then the job waits, so a retry that honoured the
// Retry-After and arrives a millisecond early (timers are not that exact) is not refused for it.
//
// Hand-written: p-queue (concurrency + interval + pause) would be one queue per host, but it is not
// a direct dependency here; rate-limiter-flexible (which is) counts points, it does not queue.

export class HostPausedError extends Error {
  constructor(
    readonly host: string,
    readonly remainingMs: number,
    /** the status that asked for the pause */
    readonly status: number | undefined,
  ) {
    super(`${host} asked to wait ${Math.ceil(remainingMs / 1000)} s more${status ? ` (HTTP ${status})` : ''}`);
  }
}

export interface HostLimiterOptions {
  concurrency: number;
  intervalMs: number;
  /** longest pause a Retry-After can impose; default 5 minutes */
  maxPauseMs?: number;
  /** a pause ending sooner than this is waited out rather than failed; default 2 s */
  waitUnderMs?: number;
}

interface HostState {
  active: number;
  /** called with 0 (go) or the pause still to run (fail) */
  waiting: Array<(pausedMs: number) => void>;
  nextStartAt: number;
  pausedUntil: number;
  pausedStatus: number | undefined;
  timer: NodeJS.Timeout | undefined;
}

/** Idle hosts are forgotten once the map grows past this. */
const SWEEP_AT = 1000;

export class HostLimiter {
  private hosts = new Map<string, HostState>();
  private maxPauseMs: number;
  private waitUnderMs: number;

  constructor(private opts: HostLimiterOptions) {
    this.maxPauseMs = opts.maxPauseMs ?? 5 * 60_000;
    this.waitUnderMs = opts.waitUnderMs ?? 2000;
  }

  /** Runs fn when the host allows; rejects with HostPausedError if, by then, the host is paused for longer than waitUnderMs. */
  async run<T>(host: string, fn: () => Promise<T>): Promise<T> {
    const s = this.state(host);
    const pausedMs = await new Promise<number>((resolve) => {
      s.waiting.push(resolve);
      this.pump(s);
    });
    try {
      if (pausedMs > 0) throw new HostPausedError(host, pausedMs, s.pausedStatus);
      return await fn();
    } finally {
      s.active--;
      this.pump(s);
    }
  }

  /** No requests to host for ms (capped at maxPauseMs); an existing longer pause stands. */
  pause(host: string, ms: number, status?: number): void {
    const s = this.state(host);
    const until = Date.now() + Math.min(ms, this.maxPauseMs);
    if (until > s.pausedUntil) {
      s.pausedUntil = until;
      s.pausedStatus = status;
    }
    this.pump(s); // queued jobs fail now rather than at their turn
  }

  pausedForMs(host: string): number {
    return Math.max(0, (this.hosts.get(host)?.pausedUntil ?? 0) - Date.now());
  }

  private pump(s: HostState): void {
    while (s.waiting.length > 0 && s.active < this.opts.concurrency) {
      const now = Date.now();
      const pausedMs = s.pausedUntil - now;
      // released to fail: it makes no request, so it takes no turn in the spacing
      const failing = pausedMs > this.waitUnderMs;
      const waitMs = failing ? 0 : Math.max(pausedMs, s.nextStartAt - now);
      if (waitMs > 0) {
        s.timer ??= setTimeout(() => {
          s.timer = undefined;
          this.pump(s);
        }, waitMs);
        return;
      }
      if (!failing) s.nextStartAt = now + this.opts.intervalMs;
      s.active++;
      s.waiting.shift()!(failing ? pausedMs : 0);
    }
  }

  private state(host: string): HostState {
    let s = this.hosts.get(host);
    if (!s) {
      if (this.hosts.size >= SWEEP_AT) this.sweep();
      s = { active: 0, waiting: [], nextStartAt: 0, pausedUntil: 0, pausedStatus: undefined, timer: undefined };
      this.hosts.set(host, s);
    }
    return s;
  }

  /** Forgets hosts with nothing running, queued, spaced or paused (state that no longer matters). */
  private sweep(): void {
    const now = Date.now();
    for (const [host, s] of this.hosts) {
      if (s.active === 0 && s.waiting.length === 0 && s.nextStartAt <= now && s.pausedUntil <= now) this.hosts.delete(host);
    }
  }
}
