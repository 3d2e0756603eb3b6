import { describeLogRecords, describeOneShotCommands } from './one-shot-output.js';

// Issue 48, under a pseudo-terminal (`script`): what a person at a terminal sees of import, sync, reconcile and the dry run.
describeOneShotCommands('on a terminal');
describeLogRecords();
