import { createServer, connect as netConnect, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a Redis whose answers can be held back: while held, commands still reach Redis and run, and
 * their answers wait in the proxy until released. That is what a process frozen (SIGSTOP, a paused VM) between a
 * command and its answer sees: the command took effect at once, the caller learns it only when it runs again.
 */
export interface ReplyHold {
  /** The Redis URL through the proxy (the same credentials and database). */
  url: string;
  /** From now on, answers wait in the proxy. */
  hold(): void;
  /**
   * Answers wait from the first command that carries `text` (a key's part) on: it runs, its answer and every later one
   * wait. Resolves once that command went through.
   */
  holdFrom(text: string): Promise<void>;
  /**
   * Commands wait from the first one that carries `text` on: it and every later one stay in the proxy until released,
   * as in a connection's queue while it reconnects. Resolves once that command is held.
   */
  holdCommandsFrom(text: string): Promise<void>;
  /** Commands and answers flow again, the held ones first. */
  release(): void;
  close(): Promise<void>;
}

export async function replyHoldProxy(redisUrl: string): Promise<ReplyHold> {
  const target = new URL(redisUrl);
  const sockets = new Set<Socket>();
  const waiting: Array<() => void> = [];
  let held = false;
  let trigger: { text: string; seen: () => void } | undefined;
  let commandTrigger: { text: string; seen: () => void } | undefined;
  let commandsHeld = false;
  const waitingCommands: Array<() => void> = [];
  const server = createServer((client) => {
    const upstream = netConnect(Number(target.port || 6379), target.hostname);
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      const c = commandTrigger;
      if (c && chunk.includes(c.text)) {
        commandTrigger = undefined;
        commandsHeld = true;
        c.seen();
      }
      if (commandsHeld) return void waitingCommands.push(() => upstream.write(chunk));
      const t = trigger;
      if (t && chunk.includes(t.text)) {
        trigger = undefined;
        held = true;
        upstream.write(chunk, () => t.seen());
      } else upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (held) waiting.push(() => client.write(chunk));
      else client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  const url = new URL(redisUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    hold: () => void (held = true),
    holdFrom: (text) => new Promise<void>((seen) => (trigger = { text, seen })),
    holdCommandsFrom: (text) => new Promise<void>((seen) => (commandTrigger = { text, seen })),
    release() {
      held = false;
      commandsHeld = false;
      for (const send of [...waitingCommands.splice(0), ...waiting.splice(0)]) send();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
