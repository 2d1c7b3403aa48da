'use strict';
/**
 * stateguard is ESM only. Node.js 20 cannot require() an ES module and says so in words that do not
 * name the fix; Node.js 22.12 and later can, and then this loads the package as is.
 */
const FIX =
  'stateguard is ESM only: import it (or `await import(...)` from CommonJS). In a TypeScript ' +
  'project, set "type": "module" in package.json and "module": "node16" (or "nodenext") in ' +
  'tsconfig.json; see the README, Install.';

/** Requires the ES module `load` names, or throws one error that says what to do. */
module.exports = function esmOnly(load, entry) {
  try {
    return load();
  } catch (error) {
    if (error && error.code === 'ERR_REQUIRE_ESM') {
      const wrapped = new Error(`require('${entry}'): ${FIX}`, { cause: error });
      wrapped.code = 'ERR_REQUIRE_ESM';
      throw wrapped;
    }
    throw error;
  }
};
