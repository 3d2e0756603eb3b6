import type { SettingsShape, SettingValues } from '../../config/kind-setting.js';
import type { FeedKind } from '../feed/feed-kind.js';
import type { OpsKind } from '../ops/ops-kind.js';
import type { RunnerKind } from '../queue/runner-kind.js';

/** The values a kind's pull is handed: typed by its settings, loose for a list of any kinds. */
type ValuesOf<S extends SettingsShape> = 0 extends 1 & S ? any : SettingValues<S>;

/**
 * One kind of job, declared whole in its folder (jobs/<kind>/<kind>-kind.ts): its stream, and by who reads them, its
 * `record` (src/records), `settings` (config), `feed` (src/feed), `job` (src/queue), `ops` (src/ops) and `redisKeys`
 * (its folder's own keys). It is the sum of the slices each layer declares of it and takes (RunnerKind, FeedKind,
 * OpsKind, SettingsOfKind), so no layer below imports it. The composition root (src/bin) hands the list of them
 * (jobs/kinds.ts) to config, the engine and every command, which never name a kind.
 */
export type Kind<R = any, S extends SettingsShape = any> = RunnerKind<R> &
  OpsKind<R> &
  FeedKind<ValuesOf<S>> & {
    /** Its own settings (poll interval or cron, go-live floor), by variable: rule, default, doc line. None: none. */
    settings?: S;
    /**
     * The Redis keys it keeps beside its queues, as patterns under the prefix (`{prefix}:<name>:{key}`); its folder
     * names them (a `<kind>-keys.ts`), the engine never does. None: only its queues and the engine's per-stream keys.
     */
    redisKeys?: readonly string[];
  };

/**
 * A kind's declaration, checked, with its record type taken from its schema and the values its pull gets typed by
 * its settings (a typo in a setting's name fails to compile).
 */
export function defineKind<R, const N extends string, S extends SettingsShape = Record<never, never>>(
  kind: Kind<R, S> & { stream: N },
): Kind<R, S> & { stream: N } {
  return kind;
}
