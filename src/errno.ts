/**
 * A file-system error in words, for one-line messages that say what is wrong with a path instead of
 * showing a code (ENOENT, EISDIR): the same words wherever a file is read or written.
 */
export function errnoWords(error: unknown, doing: 'reading' | 'writing' = 'writing'): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return doing === 'reading' ? 'no such file' : 'its folder does not exist';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file is in the way (part of the path is a file, not a folder)';
    case 'ENOSPC':
      return 'no space left on the disk';
    case 'EDQUOT':
      return 'over the disk quota';
    case 'EROFS':
      return 'the file system is read-only';
    case 'EIO':
      return 'an input/output error';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files (lower --concurrency, or raise the limit with ulimit -n)';
    default:
      return code ?? (error as Error)?.message ?? String(error);
  }
}
