/**
 * Where the tests find the compact YANG models written for them (core/test/models, see its
 * README.md): the shapes of ietf-interfaces, ietf-ip, ietf-system, example-jukebox, OpenConfig and
 * the rest, with only what the tests use, so the suite needs nothing outside the repository.
 */
import * as path from 'node:path';

/** The models folder, from core/dist/test (compiled) back to the sources. */
export const TEST_MODELS = path.resolve(__dirname, '../../test/models');

/** A model file by its name in the models folder, e.g. 'ietf-interfaces@2018-02-20.yang'. */
export function testModel(file: string): string {
  return path.join(TEST_MODELS, file);
}
