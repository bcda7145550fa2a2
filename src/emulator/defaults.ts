/** Where the emulator listens, and what an injected failure answers, unless told otherwise. */
export const DEFAULT_PORT = 8787;
export const DEFAULT_FAIL_STATUS = 503;
