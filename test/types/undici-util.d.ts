// undici ships no declarations for its files: its making of an answer's headers object, which the
// client's handlers are given; test/unit/response.test.ts builds headers with it as undici does.
declare module 'undici/lib/core/util.js' {
  export function parseHeaders(raw: ReadonlyArray<Buffer | string>): Record<string, string | string[]>;
}
