const IN_THE_WAY = 'a file is in the way (part of the path is a file, not a folder)';
const TOO_MANY = 'too many open files (lower --concurrency, or raise the limit with ulimit -n)';
/** What each file-system error means to a person (ENOENT depends on the doing: errnoWords). */
// prettier-ignore
const WORDS: Record<string, string> = {
  EACCES: 'permission denied', EPERM: 'permission denied', EISDIR: 'it is a folder', ENOTDIR: IN_THE_WAY, EEXIST: IN_THE_WAY,
  ENOSPC: 'no space left on the disk', EDQUOT: 'over the disk quota', EROFS: 'the file system is read-only', EIO: 'an input/output error',
  ELOOP: 'its symbolic links go round in a loop', EMFILE: TOO_MANY, ENFILE: TOO_MANY,
};

/**
 * A file-system error in words, for one-line messages that say what is wrong with a path instead of
 * showing a code (ENOENT, EISDIR): the same words wherever a file is read or written.
 */
export function errnoWords(error: unknown, doing: 'reading' | 'writing' = 'writing'): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return doing === 'reading' ? 'no such file' : 'its folder does not exist';
  if (code === undefined) return (error as Error)?.message ?? String(error);
  return Object.hasOwn(WORDS, code) ? WORDS[code]! : code;
}
