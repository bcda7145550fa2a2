/** What each file-system error means to a person (ENOENT depends on the doing: errnoWords). */
const WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder',
  ENOTDIR: 'a file is in the way (part of the path is a file, not a folder)',
  EEXIST: 'a file is in the way (part of the path is a file, not a folder)',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'over the disk quota',
  EROFS: 'the file system is read-only',
  EIO: 'an input/output error',
  ELOOP: 'its symbolic links go round in a loop',
  EMFILE: 'too many open files (lower --concurrency, or raise the limit with ulimit -n)',
  ENFILE: 'too many open files (lower --concurrency, or raise the limit with ulimit -n)',
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
