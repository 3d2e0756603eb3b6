import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { check, type CheckResult } from './check-types.js';

/** A secret and the forms it may travel in; `label` is what a report may print (never the value). */
export interface SecretForm {
  label: string;
  value: string;
}

/** Each secret raw, URL-encoded and base64, plus the Basic credentials header value. */
export function secretForms(secrets: Record<string, string>, basic: [string, string] | Array<[string, string]>): SecretForm[] {
  const pairs: Array<[string, string]> = typeof basic[0] === 'string' ? [basic as [string, string]] : (basic as Array<[string, string]>);
  const forms: SecretForm[] = [];
  for (const [label, value] of Object.entries(secrets)) {
    forms.push({ label, value });
    if (encodeURIComponent(value) !== value) forms.push({ label: `${label} (url-encoded)`, value: encodeURIComponent(value) });
    forms.push({ label: `${label} (base64)`, value: Buffer.from(value).toString('base64') });
  }
  for (const [i, [key, secret]] of pairs.entries())
    forms.push({ label: `Basic credentials${i ? ` (${i + 1})` : ''}`, value: Buffer.from(`${key}:${secret}`).toString('base64') });
  return forms;
}

function hits(text: Buffer | string, forms: SecretForm[]): string[] {
  const buf = typeof text === 'string' ? Buffer.from(text) : text;
  return forms.filter((f) => buf.includes(f.value)).map((f) => f.label);
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** Every file of the given paths (folders walked) searched for every form of every secret. */
export function scanFiles(what: string, paths: string[], forms: SecretForm[]): CheckResult {
  const files = paths.flatMap((p) => (statSync(p).isDirectory() ? filesUnder(p) : [p]));
  const violations: string[] = [];
  let bytes = 0;
  for (const f of files) {
    const data = readFileSync(f);
    bytes += data.length;
    for (const label of hits(data, forms)) violations.push(`${label} found in ${f}`);
  }
  return check(`no secret in ${what} (${files.length} files, ${(bytes / 1e6).toFixed(1)} MB)`, files.length, violations);
}

/** Every value of one key, whatever its type, as buffers. */
async function valuesOf(redis: Redis, key: string): Promise<Buffer[]> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return [(await redis.getBuffer(key)) ?? Buffer.alloc(0)];
    case 'hash': {
      const h = await redis.hgetallBuffer(key);
      return Object.entries(h).flatMap(([k, v]) => [Buffer.from(k), v]);
    }
    case 'list':
      return redis.lrangeBuffer(key, 0, -1);
    case 'set':
      return redis.smembersBuffer(key);
    case 'zset':
      return redis.zrangeBuffer(key, '0', '-1');
    case 'stream': {
      const entries = (await redis.xrangeBuffer(key, '-', '+')) as Array<[Buffer, Buffer[]]>;
      return entries.flatMap(([id, fields]) => [id, ...fields]);
    }
    default:
      return [Buffer.from(`(type ${type})`)];
  }
}

/** Every key name and every value in the whole (private) Redis, searched for every form of every secret. */
export async function scanRedis(redis: Redis, forms: SecretForm[]): Promise<CheckResult> {
  const violations: string[] = [];
  let keys = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scanBuffer(cursor, 'COUNT', 1000);
    cursor = String(next);
    for (const raw of batch) {
      keys++;
      const key = raw.toString();
      for (const label of hits(raw, forms)) violations.push(`${label} in the name of key ${key}`);
      for (const v of await valuesOf(redis, key))
        for (const label of hits(v, forms)) violations.push(`${label} in the value of key ${key}`);
    }
  } while (cursor !== '0');
  return check(`no secret in Redis keys or values (every type, ${keys} keys)`, keys, violations);
}

/** Answers of the dashboard (already fetched) searched for every form of every secret. */
export function scanAnswers(answers: Array<{ path: string; body: string }>, forms: SecretForm[]): CheckResult {
  const violations = answers.flatMap((a) => hits(a.body, forms).map((label) => `${label} in the answer to ${a.path}`));
  return check(`no secret in the dashboard's answers (${answers.length} pages and API calls)`, answers.length, violations);
}
