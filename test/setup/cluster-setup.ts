import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { startLocalCluster } from '../kit/local-cluster.js';
import { requirePrerequisites, stopRun } from './prerequisites.js';

/**
 * The `cluster` project: a real three-node Redis Cluster of its own for the run, with a password (as managed
 * clusters have), reached as an operator would (REDIS_CLUSTER_NODES=redis://:password@seed), and a hash tag whose
 * slot lives on another node than the seed the tests give the client (so every command of theirs is first MOVED).
 */
export default async function setup(project: TestProject) {
  await requirePrerequisites(['redis', 'redis-cluster']);
  const password = `cl-${randomBytes(8).toString('hex')}`;
  const cluster = await startLocalCluster({ password }).catch((err: Error) =>
    stopRun([`Redis Cluster: could not create a local one: ${err.message}`]),
  );
  const seed = cluster.nodes[0]!;
  let tag = '';
  for (let i = 0; !tag; i++) {
    const owner = await cluster.ownerOf(`{c${i}}`);
    if (owner.port !== seed.port) tag = `c${i}`;
  }
  project.provide('redisCluster', { seed, nodes: cluster.nodes, tag, password });
  project.provide('redisSettings', { REDIS_CLUSTER_NODES: `redis://:${password}@${seed.host}:${seed.port}` });
  return () => cluster.stop();
}
