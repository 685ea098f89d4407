// Makes `require('vscode')` load the in-memory stand-in (./vscode.ts) in plain Node. Import this
// before any provider.
import { createRequire } from 'node:module';
import { join } from 'node:path';

// The loader's own object (a namespace import would be a copy).
const Module = createRequire(__filename)('node:module') as object;

const fake = join(__dirname, 'vscode.js');
const resolve = (Module as unknown as { _resolveFilename: (req: string, ...rest: unknown[]) => string })._resolveFilename;
(Module as unknown as { _resolveFilename: typeof resolve })._resolveFilename = function (req: string, ...rest: unknown[]) {
  return req === 'vscode' ? fake : resolve.call(this, req, ...rest);
};
