// Tests are written in TypeScript and compiled by `tsc -b` (npm test does that first);
// ava runs the compiled files so what is tested is exactly what ships.
export default {
  files: ['core/dist/test/**/*.test.js', 'sdk/dist/test/**/*.test.js', 'plugins/*/dist/test/**/*.test.js', 'test/dist/**/*.test.js'],
  nodeArguments: ['--enable-source-maps'],
  timeout: '2m',
  concurrency: 2,
  workerThreads: false,
};
