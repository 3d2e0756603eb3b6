// test/setup/default-redis-guard.mjs has no exports: importing it puts the guard on.
export {};
