import { defaultRedisGuard } from '../helpers/redis.js';

// Every test file starts here: when the run's Redis is not at the default address (as .ci/run arranges), a
// connection to 127.0.0.1:6379 fails loudly (test/setup/default-redis-guard.mjs) instead of reaching another Redis.
if (defaultRedisGuard().length > 0) await import('./default-redis-guard.mjs');
