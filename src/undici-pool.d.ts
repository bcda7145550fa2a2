// undici ships no declarations for its files; the pool is its Pool class (see client/undici.ts).
declare module 'undici/lib/dispatcher/pool.js' {
  import type { Pool } from 'undici';
  const PoolClass: typeof Pool;
  export default PoolClass;
}

// Its connector factory (the pool requires it too), to wrap the connector (see client/undici.ts).
declare module 'undici/lib/core/connect.js' {
  import type { buildConnector } from 'undici';
  const build: typeof buildConnector;
  export default build;
}
