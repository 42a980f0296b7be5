// An imitation of an Electron app's main process for the Node inspector
// route: it loads "electron" (electron.js, beside it, through a resolver
// hook below) and stays alive. Run with: node --inspect=127.0.0.1:0 main.js
'use strict';
const Module = require('module');
const path = require('path');
const origResolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'electron') return path.join(__dirname, 'electron.js');
  return origResolve.call(this, request, ...rest);
};
require('electron');
console.log('ready'); // the app is up: its windows exist
setInterval(() => {}, 1 << 30);
