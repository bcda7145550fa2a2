// undici ships no declarations for its files: the pool's Pool class and connector factory, typed where client/undici.ts imports them.
declare module 'undici/lib/dispatcher/pool.js';
declare module 'undici/lib/core/connect.js';
