/**
 * Wakes waiting long polls. Changes made by this instance call poke() right after they commit;
 * changes made elsewhere (other API instances, billing jobs, SQL by an operator) arrive as a
 * PostgreSQL notification (notified(): the change log's writer notifies, nodes/area.ts listens)
 * and, as a fallback when notifications are lost, are seen by one shared tick that reads the
 * latest version every `pollMs` while anyone waits. A waiter also wakes at its own wakeAt (a
 * subscription expiring, or the end of the long poll).
 */
export interface ChangeWatcher {
  /**
   * Resolves when the version passes `since`, at `wakeAt` (epoch ms), or on close. `mark` (from
   * mark(), taken before the caller read the version it waits past) makes a poke or notification
   * that came in between count: the version is read again at once.
   */
  wait(since: number, wakeAt: number, mark?: number): Promise<void>;
  poke(): void;
  /** Another instance (or SQL) changed the log: a notification. Same as poke, counted apart. */
  notified(): void;
  /** A counter of pokes and notifications so far (see wait). */
  mark(): number;
  close(): void;
  readonly waiting: number;
  /** How often waiters were checked because of each cause (tests, metrics). */
  readonly wakes: { poke: number; notify: number; poll: number };
}

interface Waiter {
  since: number;
  wakeAt: number;
  resolve: () => void;
}

export function createChangeWatcher(
  readVersion: () => Promise<number>,
  pollMs: number,
  onError: (err: unknown) => void = () => {},
): ChangeWatcher {
  const waiters = new Set<Waiter>();
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let again = false;
  let closed = false;
  let pokes = 0;
  const wakes = { poke: 0, notify: 0, poll: 0 };

  const release = (w: Waiter) => {
    waiters.delete(w);
    w.resolve();
  };

  async function tick(): Promise<void> {
    if (ticking) {
      again = true;
      return;
    }
    ticking = true;
    try {
      do {
        again = false;
        if (!waiters.size) break;
        let version: number | undefined;
        try {
          version = await readVersion();
        } catch (err) {
          onError(err);
        }
        const now = Date.now();
        for (const w of waiters) if ((version !== undefined && version > w.since) || w.wakeAt <= now) release(w);
      } while (again);
    } finally {
      ticking = false;
      schedule();
    }
  }

  function schedule(): void {
    if (timer || closed || !waiters.size) return;
    const soonest = Math.min(...[...waiters].map((w) => w.wakeAt));
    const delay = Math.max(0, Math.min(pollMs, soonest - Date.now()));
    timer = setTimeout(() => {
      timer = undefined;
      wakes.poll++;
      void tick();
    }, delay);
  }

  function wakeNow(): void {
    pokes++;
    if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
    void tick();
  }

  return {
    wait(since, wakeAt, mark) {
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.add({ since, wakeAt, resolve });
        if (timer) {
          clearTimeout(timer);
          timer = undefined;
        }
        if (mark !== undefined && mark !== pokes) void tick();
        else schedule();
      });
    },
    poke() {
      wakes.poke++;
      wakeNow();
    },
    notified() {
      wakes.notify++;
      wakeNow();
    },
    mark: () => pokes,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of waiters) release(w);
    },
    get waiting() {
      return waiters.size;
    },
    wakes,
  };
}
