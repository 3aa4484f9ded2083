// Bundles the extension and vscode-languageclient into one CommonJS file (dist/extension.js),
// so the .vsix ships no node_modules (`vsce package --no-dependencies`).
import { build } from 'esbuild';

await build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  outfile: 'dist/extension.js',
  sourcemap: process.argv.includes('--sourcemap'),
  minify: process.argv.includes('--minify'),
  logLevel: 'info',
});
