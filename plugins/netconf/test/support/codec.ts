/**
 * Test stand-in for the core side of DeviceDataCodec: compiles a device's downloaded modules with the
 * core's YANG engine and decodes NETCONF XML with the core's XML decoder, as the mount layer will.
 * Operation outputs are read without the schema (leaf text as strings): enough for the simulator's
 * actions, and labelled as such.
 */
import { yang } from '@rosetta/core';
import { decodeXml, toJsonValue } from '@rosetta/core/dist/src/data';
import { deviceCodec } from '@rosetta/core/dist/src/mount/codec';
import { parseXml, standaloneText, type DeviceDataCodec, type JsonObject, type JsonValue, type XmlElement } from '@rosetta/sdk';

export function compileSources(sources: ReadonlyArray<{ name: string; revision?: string; text: string }>): yang.SchemaContext {
  const repo = new yang.ModuleRepository([]);
  for (const s of sources) repo.addText(`${s.name}${s.revision ? `@${s.revision}` : ''}.yang`, s.text);
  return yang.compileSchema(repo, { modules: sources.map((s) => s.name) });
}

function plain(e: XmlElement): JsonValue {
  if (e.children.length === 0) return e.text.trim();
  const out: Record<string, JsonValue> = {};
  for (const c of e.children) out[c.name] = plain(c);
  return out;
}

export function testCodec(ctx: yang.SchemaContext): DeviceDataCodec {
  const codec: DeviceDataCodec = {
    // the pieces gathered and decoded whole at the end (the core's codec decodes them as they come)
    dataReader(options = {}) {
      let text = '';
      return {
        push: (piece) => {
          text += piece;
        },
        end: (rest) => codec.fromXml(text + rest, options),
      };
    },
    fromXml(xml: string, options = {}): JsonObject {
      const root = parseXml(xml);
      if (options.operation) return plain(root) as JsonObject;
      const out: JsonObject = {};
      for (const c of root.children) {
        const decoded = decodeXml(standaloneText(xml, c), ctx);
        Object.assign(out, toJsonValue(decoded.root) as JsonObject);
      }
      return out;
    },
    // edits are written by the core's own encoder, as the mount layer's codec writes them
    valueXml: (path, value, options) => deviceCodec(ctx).valueXml(path, value, options),
    inputXml: (operation, input) => deviceCodec(ctx).inputXml(operation, input),
  };
  return codec;
}
