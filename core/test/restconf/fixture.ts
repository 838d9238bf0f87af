/**
 * Schemas and data the RESTCONF URI and query tests run against: the compact test models of
 * core/test/models (ietf-interfaces + ietf-ip + iana-if-type, example-jukebox with its ordered-by user
 * playlist, openconfig-interfaces and openconfig-network-instance for identityref keys), plus one
 * small module for what those lack (an action, a union, a choice with defaults, a two-key list, an
 * ordered-by user leaf-list).
 */
import { decodeJson } from '../../src/data/json-decode';
import type { DataRoot } from '../../src/data/tree';
import { compileSchema } from '../../src/yang/compiler';
import { ModuleRepository } from '../../src/yang/repository';
import type { SchemaContext } from '../../src/yang/schema';
import { MODEL_DIRS } from '../data/fixture';

export const EXTRA_YANG = `
module rc-extra {
  yang-version 1.1;
  namespace "urn:rosetta:test:rc-extra";
  prefix rx;
  import iana-if-type { prefix ianaift; }
  container box {
    leaf name { type string; }
    leaf level { type uint8; default 5; }
    leaf either { type union { type int32; type boolean; type empty; type string; } }
    leaf-list order { type string; ordered-by user; }
    leaf-list plain { type uint16; }
    leaf-list dflt { type uint16; default 1; default 2; }
    choice mode {
      default auto;
      case auto { leaf auto-speed { type uint32; default 1000; } }
      case manual { leaf manual-speed { type uint32; } }
    }
    container inner { leaf deep { type string; default "d"; } }
    container flag { presence "on"; }
    list pair {
      key "a b";
      leaf a { type string; }
      leaf b { type int16; }
      leaf v { type string; }
      leaf u { type union { type int32; type boolean; type empty; type string; } }
    }
    list typed {
      key kind;
      leaf kind { type identityref { base ianaift:iana-interface-type; } }
      leaf note { type string; }
    }
    list server {
      key name;
      leaf name { type string; }
      leaf port { type uint16; }
      action restart { input { leaf delay { type uint8; } } }
    }
    container stats { config false; leaf hits { type uint64; } }
  }
  rpc ping { input { leaf host { type string; } } }
}`;

let ietf: SchemaContext | undefined;
let oc: SchemaContext | undefined;

function assertCompiled(ctx: SchemaContext): SchemaContext {
  const errors = ctx.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) throw new Error(`test schema does not compile: ${errors.map((e) => e.message).join('; ')}`);
  return ctx;
}

/** ietf-interfaces + ietf-ip + iana-if-type + example-jukebox + rc-extra. */
export function ietfSchema(): SchemaContext {
  if (ietf) return ietf;
  const repo = new ModuleRepository([...MODEL_DIRS]);
  repo.addText('rc-extra.yang', EXTRA_YANG);
  ietf = assertCompiled(compileSchema(repo, { modules: ['ietf-interfaces', 'ietf-ip', 'iana-if-type', 'example-jukebox', 'rc-extra'] }));
  return ietf;
}

/** openconfig-interfaces (+ if-ethernet, if-ip) and openconfig-network-instance. */
export function ocSchema(): SchemaContext {
  if (oc) return oc;
  const modules = [
    'openconfig-interfaces',
    'openconfig-if-ethernet',
    'openconfig-if-ip',
    'openconfig-network-instance',
    'openconfig-policy-types',
  ];
  oc = assertCompiled(compileSchema(new ModuleRepository([...MODEL_DIRS]), { modules, implementImports: true }));
  return oc;
}

/** Decodes a JSON document at the top level of `ctx` into a tree. */
export function tree(ctx: SchemaContext, json: unknown): DataRoot {
  return decodeJson(json, ctx).root;
}
