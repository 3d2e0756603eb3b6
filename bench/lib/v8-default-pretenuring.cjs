// Bench only (bench/heap-regimes.ts): a worker preloaded with this keeps V8's default allocation-site pretenuring,
// which a worker of ACCOUNTS_FILE turns off (src/app/many-accounts-heap.ts), so that the two are compared in one run.
const v8 = require('node:v8');
const { syncBuiltinESMExports } = require('node:module');

const set = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  if (!String(flags).includes('allocation-site-pretenuring')) set(flags);
};
// The program imports it as an ES module's named export: made to see this one.
syncBuiltinESMExports();
