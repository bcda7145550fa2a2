/** What `fn` returns, or `otherwise` when it throws: for a step whose failure only means there is nothing to use (no such file, not JSON). */
export function tryOr<T, U = undefined>(fn: () => T, otherwise?: U): T | U {
  try {
    return fn();
  } catch {
    return otherwise as U;
  }
}
