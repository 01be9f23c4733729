'use strict';
// Loaded with `node --require` before Playwright MCP's cli.js (launch.py).
//
// Every browser start is a new Node process that compiles Playwright's two large
// bundles (playwright-core/lib/coreBundle.js and utilsBundle.js, 6.6 MB of JavaScript)
// before it does anything: about a quarter of the 0.4 CPU s a server spends starting.
// V8 can hand out the code it compiled and take it back next time (a code cache, what
// Node 22's NODE_COMPILE_CACHE keeps; Node 20, which SubTerminator supports, has no
// such switch). This keeps one per bundle in the directory that
// SUBTERMINATOR_NODE_CODE_CACHE names: node_modules/.cache/subterminator beside the
// package, so whoever could change the cache could change the bundles themselves.
//
// The rules that keep it from ever running other code than the bundle's own:
// - a cache file is named by the SHA-256 of Node's version, V8's cache tag, the
//   bundle's path and its whole text, so an edited or upgraded bundle never meets an
//   old cache (V8's own check compares only the source's length);
// - V8 checks the data itself and rejects what does not fit (then the bundle compiles
//   as usual and the file is written again);
// - anything that goes wrong before the bundle runs (no directory, an unreadable file,
//   a Node without the loader the wrapper needs) means Node's own compile, as without
//   this file; a bundle is never run twice.
const crypto = require('crypto');
const fs = require('fs');
const Module = require('module');
const path = require('path');
const v8 = require('v8');
const vm = require('vm');

const directory = process.env.SUBTERMINATOR_NODE_CODE_CACHE;
// Lets a bundle's `import()` load modules as Node's own compile would (Node 20.12+).
const defaultLoader = vm.constants && vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER;
const BUNDLES = new Set(['coreBundle.js', 'utilsBundle.js']);

function isBundle(filename) {
  return (
    BUNDLES.has(path.basename(filename)) &&
    path.basename(path.dirname(path.dirname(filename))) === 'playwright-core'
  );
}

function cacheFile(filename, content) {
  const digest = crypto
    .createHash('sha256')
    .update(`${process.version}\0${v8.cachedDataVersionTag()}\0${filename}\0`)
    .update(content)
    .digest('hex');
  return path.join(directory, `${path.basename(filename, '.js')}-${digest}.v8`);
}

function readCache(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

// Written beside under a name of this process's own, then renamed: a reader sees the
// old file, the new one or none, never half of one. Older caches of the bundle go.
function writeCache(file, data) {
  try {
    fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, data, { mode: 0o600 });
    fs.renameSync(partial, file);
    const prefix = path.basename(file).split('-')[0] + '-';
    for (const name of fs.readdirSync(directory)) {
      if (name.startsWith(prefix) && name.endsWith('.v8') && name !== path.basename(file)) {
        fs.rmSync(path.join(directory, name), { force: true });
      }
    }
  } catch {
    // An unwritable directory only means compiling next time too.
  }
}

// The `require` Node's own compile hands a module (lib/internal/modules/helpers.js).
function requireFor(module) {
  const require = (id) => module.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, module, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, module);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

if (directory && defaultLoader !== undefined) {
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileWithCache(content, filename) {
    if (!isBundle(filename)) {
      return compile.call(this, content, filename);
    }
    let file;
    let cachedData;
    let script;
    let wrapper;
    try {
      file = cacheFile(filename, content);
      cachedData = readCache(file);
      script = new vm.Script(Module.wrap(content), {
        filename,
        cachedData,
        importModuleDynamically: defaultLoader,
      });
      wrapper = script.runInThisContext({ displayErrors: true });
    } catch {
      return compile.call(this, content, filename);
    }
    const result = wrapper.call(
      this.exports,
      this.exports,
      requireFor(this),
      this,
      filename,
      path.dirname(filename),
    );
    // After the bundle ran: the cache then holds what its start compiled too.
    if (cachedData === undefined || script.cachedDataRejected) {
      writeCache(file, script.createCachedData());
    }
    return result;
  };
}
