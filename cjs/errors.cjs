'use strict';
// require('stateguard/errors'): the ES module itself where Node.js can require() it, else an error naming the fix.
module.exports = require('./esm-only.cjs')(() => require('../dist/errors.js'), 'stateguard/errors');
