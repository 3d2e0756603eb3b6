import type { ExitCodeValue } from './exit-codes.js';

/** Commands report their exit code through this. */
export type CommandResult = (code: ExitCodeValue) => void;
