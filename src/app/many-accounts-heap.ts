import { setFlagsFromString } from 'node:v8';

/**
 * V8's heap, tuned for a `worker` of many accounts (ACCOUNTS_FILE), before any account opens: no allocation-site
 * pretenuring. V8 allocates the objects of an allocation site straight in the old generation once most of them
 * survived a scavenge; when a thousand accounts open and poll at once, the sites of every poll's short-lived objects
 * (its retries' options, its signal, its request) are so marked, and from then on each poll's garbage goes to the old
 * generation, which grows until a full collection: a process of 1,000 idle polled accounts sat at 160 to 270 MB of
 * RSS by the run, over the minutes, as V8 let that garbage grow or not (docs/accounts.md, "Sizing": how often, with
 * and without it). A GC heuristic only: what the program does is the same.
 */
export function tuneHeapForManyAccounts(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
