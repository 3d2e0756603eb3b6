import { describeOneShotCommands } from './one-shot-output.js';

// Issue 48, off a terminal (pipes, as cron or CI run them): the same commands, the same truths.
describeOneShotCommands('off a terminal');
