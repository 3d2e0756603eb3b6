import type { ChainableCommander } from 'ioredis';
import type { RedisConnection } from './connection.js';

/**
 * The program's Lua scripts, each declared once (`redisScript`) and run through ioredis's `defineCommand`: EVALSHA,
 * with the script sent by EVAL when a server does not know it (a new connection, a restart, SCRIPT FLUSH), on one
 * server or a Cluster alike. A script is defined on a connection at its first use there, so connections that BullMQ
 * or a test made get it too. Its command is named `isync_<name>`, apart from BullMQ's own commands.
 */
export interface RedisScript {
  /** Name of its command on a connection (`isync_<name>`). */
  readonly command: string;
  readonly lua: string;
}

const PREFIX = 'isync_';
const declared = new Map<string, RedisScript>();

/** Declares a script; a second declaration of a name with other Lua is a bug and throws. */
export function redisScript(name: string, lua: string): RedisScript {
  const command = `${PREFIX}${name}`;
  const known = declared.get(command);
  if (known && known.lua !== lua) throw new Error(`internal error: Redis script ${name} declared twice with different Lua`);
  const script = known ?? { command, lua };
  declared.set(command, script);
  return script;
}

/** Every script declared so far (by the modules loaded), for tests. */
export function declaredScripts(): RedisScript[] {
  return [...declared.values()];
}

/** Whether a property of a connection is one of these scripts' commands (the dry run refuses them: they write). */
export function isScriptCommand(prop: string): boolean {
  return prop.startsWith(PREFIX) && declared.has(prop.replace(/Buffer$/, ''));
}

type ScriptCommand = (...args: Array<string | number>) => Promise<unknown>;

/** Runs a script with EVAL's arguments: the number of keys, the keys, then the other arguments. */
export function runScript(redis: RedisConnection, script: RedisScript, args: ReadonlyArray<string | number>): Promise<unknown> {
  defineScript(redis, script);
  const commands = redis as unknown as Record<string, ScriptCommand | undefined>;
  return commands[script.command]!.apply(redis, args as Array<string | number>);
}

/** Defines a script on a connection (once): then it runs there, and in the pipelines made after (queueScript). */
export function defineScript(redis: RedisConnection, script: RedisScript): void {
  const commands = redis as unknown as Record<string, ScriptCommand | undefined>;
  if (typeof commands[script.command] !== 'function') redis.defineCommand(script.command, { lua: script.lua });
}

/** Queues a script (defineScript'd on the pipeline's connection first) into a pipeline, with EVAL's arguments. */
export function queueScript(p: ChainableCommander, script: RedisScript, args: ReadonlyArray<string | number>): void {
  const commands = p as unknown as Record<string, ScriptCommand | undefined>;
  // A pipeline's command answers in exec's replies; the promise it returns is the same answer, not awaited here.
  void commands[script.command]!.apply(p, args as Array<string | number>);
}
