/**
 * Schemas the data tests run against: the compact test models in the shape of ietf-interfaces,
 * ietf-ip, iana-if-type, ietf-system, example-jukebox and ietf-origin (for an md:annotation) from
 * core/test/models, plus one small module written here for the node kinds and types those lack
 * (empty, int64, anydata, bits, union, a two-key list, an ordered-by user list of containers).
 */
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaContext } from '../../src/yang/schema';
import { OWN_YANG_DIR } from '../../src/service/schema';
import { TEST_MODELS } from '../test-models';

/** The test models and the service's own modules (ietf-yang-types, ietf-yang-metadata, ...). */
export const MODEL_DIRS: readonly string[] = [TEST_MODELS, OWN_YANG_DIR];

export const KINDS_YANG = `
module data-kinds {
  yang-version 1.1;
  namespace "urn:rosetta:test:data-kinds";
  prefix dk;
  import ietf-yang-metadata { prefix md; }
  import iana-if-type { prefix ianaift; }
  md:annotation note { type string; }
  md:annotation weight { type uint8; }
  container kinds {
    leaf flag { type empty; }
    leaf big { type int64; }
    leaf counter { type uint64; }
    leaf ratio { type decimal64 { fraction-digits 2; } }
    leaf small { type int8 { range "-10..10"; } }
    leaf mask { type bits { bit read; bit write; bit exec; } }
    leaf either { type union { type int32; type string; } }
    leaf iftype { type identityref { base ianaift:iana-interface-type; } }
    leaf color { type enumeration { enum red; enum green; } }
    leaf-list tags { type string; ordered-by user; }
    leaf-list numbers { type uint32; }
    anydata blob;
    list route {
      key "prefix metric";
      leaf prefix { type string; }
      leaf metric { type uint32; }
      leaf next-hop { type string; }
    }
    list rule {
      key name;
      ordered-by user;
      leaf name { type string; }
      container match { leaf port { type uint16; } }
    }
    container state { config false; leaf uptime { type uint32; } }
  }
}`;

let cached: SchemaContext | undefined;

/** The test schema: the test models plus data-kinds, compiled once per test process. */
export function schema(): SchemaContext {
  if (cached) return cached;
  const repo = new ModuleRepository([...MODEL_DIRS]);
  repo.addText('data-kinds.yang', KINDS_YANG);
  const ctx = compileSchema(repo, {
    modules: ['ietf-interfaces', 'ietf-ip', 'iana-if-type', 'ietf-system', 'example-jukebox', 'ietf-origin', 'data-kinds'],
  });
  const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`test schema does not compile: ${errors.map((e) => e.message).join('; ')}`);
  cached = ctx;
  return ctx;
}
