/** Where benchmarks find the shared corpus and the repository. */
import * as path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');
export const sharedYang = path.resolve(repoRoot, '..', 'shared', 'yang');
