import net from 'node:net';

/**
 * The OpenVPN servers' management sockets (unix, one per server). OpenVPN serves one management
 * client at a time, so every call to a socket waits for the one before it: a metrics scrape asking
 * for the client list must never make a revocation's `kill` miss its connection.
 */
const queues = new Map<string, Promise<unknown>>();

/**
 * Sends `commands` and collects the answer until `done` says it is complete (or `timeoutMs`
 * passes, or the socket fails): the text read so far, '' when nothing could be read.
 */
export function managementCall(
  socket: string,
  commands: string,
  done: (answer: string) => boolean,
  timeoutMs = 2000,
): Promise<string> {
  const once = (): Promise<{ answer: string; refused: boolean }> =>
    new Promise((resolve) => {
      let answer = '';
      const c = net.connect(socket);
      const finish = () => {
        clearTimeout(timer);
        c.destroy();
        resolve({ answer, refused: answer === '' });
      };
      const timer = setTimeout(finish, timeoutMs);
      c.on('error', finish);
      c.on('close', finish);
      c.on('data', (d: Buffer) => {
        answer += d.toString('utf8');
        if (done(answer)) finish();
      });
      c.on('connect', () => c.write(commands));
    });
  // Right after a client leaves, OpenVPN may not take the next one yet (it notices the end in its
  // event loop): a connection refused or closed before any word is tried again, briefly.
  const call = async (): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const { answer, refused } = await once();
      if (!refused || Date.now() + 25 * attempt > deadline) return answer;
      await new Promise((r) => setTimeout(r, 25 * attempt));
    }
  };
  const next = (queues.get(socket) ?? Promise.resolve()).then(call, call);
  queues.set(socket, next);
  void next.finally(() => {
    if (queues.get(socket) === next) queues.delete(socket);
  });
  return next;
}

/** Asks an OpenVPN server to end every session of these users (one `kill` each, answered SUCCESS or ERROR). */
export async function killSessions(socket: string, usernames: string[]): Promise<void> {
  if (!usernames.length) return;
  await managementCall(
    socket,
    usernames.map((u) => `kill ${u}\n`).join(''),
    (a) => (a.match(/^(SUCCESS|ERROR):/gm) ?? []).length >= usernames.length,
  );
}

/**
 * The connected clients in a `status 2` answer (CLIENT_LIST rows; the header row is HEADER,CLIENT_LIST).
 * Only the count leaves this function: the rows hold the customers' addresses, which the agent keeps nowhere.
 */
export function countClients(status: string): number {
  return status.split(/\r?\n/).filter((line) => line.startsWith('CLIENT_LIST,')).length;
}

/** How many clients the server at this socket has now; undefined when it did not answer. */
export async function connectedClients(socket: string): Promise<number | undefined> {
  const answer = await managementCall(socket, 'status 2\n', (a) => /^END\r?$/m.test(a));
  return /^END\r?$/m.test(answer) ? countClients(answer) : undefined;
}
