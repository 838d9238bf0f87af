/** Where benchmarks find the repository, its test models and the shared YANG corpus. */
import * as path from 'node:path';
import { CORPUS, CORPUS_ABSENT } from '@rosetta/core/dist/test/corpus';
import { TEST_MODELS } from '@rosetta/core/dist/test/test-models';

export const repoRoot = path.resolve(__dirname, '..', '..');

/** The shared corpus by the tests' one setting (ROSETTA_YANG_CORPUS, else ../shared/yang), or undefined. */
export const sharedYang: string | undefined = CORPUS;
/** Why a benchmark that needs the corpus did not run. */
export const sharedYangAbsent = CORPUS_ABSENT;

/** The compact test models (core/test/models), for benchmarks that need a model, not the published text. */
export const testModels = TEST_MODELS;
