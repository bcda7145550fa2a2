/**
 * The dependency patches the build applies (scripts/build.mjs), as a manifest: each trims a module
 * that every `trigger fire` would load for nothing (found with `node --cpu-prof` and
 * process.moduleLoadList). The build fails when a patch no longer matches, or when its file was never
 * bundled (a dependency moved it), so that a trim is never silently lost or misapplied.
 *
 * Each entry: the file it patches, why, and either `whole` (the file's new text, applied only if the
 * old one contains `mustContain`) or `edits` ([code as it is, code as it becomes], each found once).
 */
import fs from 'node:fs';
import path from 'node:path';

export const patches = [
  {
    file: 'undici/lib/dispatcher/client-h2.js',
    why: "undici's HTTP/2 client brings node:http2, node:tls and the fetch body, WebIDL and FormData modules; allowH2 stays off",
    mustContain: 'function connectH2 (',
    whole:
      "'use strict'\nmodule.exports = function connectH2 () {\n  throw new Error('trigger is built without HTTP/2 (allowH2 must stay off)')\n}\n",
  },
  {
    file: 'commander/lib/command.js',
    why: 'node:child_process (with net, dgram and more) is only for executable subcommands, which trigger has none of',
    edits: [
      [
        "const childProcess = require('node:child_process');",
        "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };",
      ],
    ],
  },
  {
    file: 'undici/lib/core/util.js',
    why: 'node:http (1-1.5 ms) for IncomingMessage, only to destroy a stream body (trigger sends strings)',
    edits: [
      ["const { IncomingMessage } = require('node:http')\n", ''],
      ['constructor === IncomingMessage)', "constructor === require('node:http').IncomingMessage)"],
    ],
    noLeft: /\bhttp\./,
  },
  {
    file: 'undici/lib/dispatcher/client.js',
    why: "node:http for http.maxHeaderSize, which trigger's client passes itself",
    edits: [
      ["const http = require('node:http')\n", ''],
      [
        `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
        "const getDefaultNodeMaxHeaderSize = () => require('node:http').maxHeaderSize",
      ],
    ],
    noLeft: /\bhttp\./,
  },
];

/** The patched source, or a reason it no longer matches. */
export function applyPatch(patch, source) {
  if (patch.whole !== undefined) return source.includes(patch.mustContain) ? { text: patch.whole } : { error: `no ${patch.mustContain}` };
  let text = source;
  for (const [from, to] of patch.edits) {
    const at = text.indexOf(from);
    if (at === -1 || text.indexOf(from, at + 1) !== -1)
      return { error: `${at === -1 ? 'no' : 'more than one'} ${JSON.stringify(from.split('\n')[0])}` };
    text = text.slice(0, at) + to + text.slice(at + from.length);
  }
  if (patch.noLeft?.test(text)) return { error: `another use of ${patch.noLeft}` };
  return { text };
}

/**
 * An esbuild plugin that applies the patches to each build it is given to and fails the build when
 * one does not match; `check()`, after the builds, fails when a patch was never applied (its file
 * was not bundled: a dependency moved it).
 */
export function dependencyPatches() {
  const applied = new Set();
  const plugin = {
    name: 'dependency-patches',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]/ }, async (args) => {
        const patch = patches.find((p) => args.path.split(path.sep).join('/').endsWith(`/node_modules/${p.file}`));
        if (!patch) return undefined;
        const result = applyPatch(patch, await fs.promises.readFile(args.path, 'utf8'));
        if (result.error) throw new Error(`${patch.file} changed (${result.error}): update scripts/build-patches.mjs`);
        applied.add(patch);
        return { contents: result.text, loader: 'js' };
      });
    },
  };
  const check = () => {
    const missed = patches.filter((patch) => !applied.has(patch)).map((patch) => patch.file);
    if (missed.length > 0)
      throw new Error(`dependency patches never applied (not bundled): ${missed.join(', ')}; see scripts/build-patches.mjs`);
  };
  return { plugin, check };
}
