/**
 * Wakes waiting long polls. Changes made by this instance call poke() right after they commit;
 * changes made elsewhere (other API instances, billing jobs, SQL by an operator) are seen by one
 * shared tick that reads the latest version every `pollMs` while anyone waits. A waiter also wakes
 * at its own wakeAt (a subscription expiring, or the end of the long poll).
 */
export interface ChangeWatcher {
  /** Resolves when the version passes `since`, at `wakeAt` (epoch ms), or on close. */
  wait(since: number, wakeAt: number): Promise<void>;
  poke(): void;
  close(): void;
  readonly waiting: number;
}

interface Waiter {
  since: number;
  wakeAt: number;
  resolve: () => void;
}

export function createChangeWatcher(readVersion: () => Promise<number>, pollMs: number, onError: (err: unknown) => void = () => {}): ChangeWatcher {
  const waiters = new Set<Waiter>();
  let timer: NodeJS.Timeout | undefined;
  let ticking = false;
  let again = false;
  let closed = false;

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
      void tick();
    }, delay);
  }

  return {
    wait(since, wakeAt) {
      if (closed) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiters.add({ since, wakeAt, resolve });
        if (timer) {
          clearTimeout(timer);
          timer = undefined;
        }
        schedule();
      });
    },
    poke() {
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
      void tick();
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      for (const w of waiters) release(w);
    },
    get waiting() {
      return waiters.size;
    },
  };
}
