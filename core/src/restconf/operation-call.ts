/**
 * One call of a RESTCONF operation (an RPC or an action), whoever implements it: reads the body, decodes
 * the `input` against the operation's schema (JSON or XML, an empty body being an empty input), lets the
 * caller check it, invokes, and answers the output in the negotiated encoding (204 when there is none).
 * Local operations (operations.ts), device operations under a mount point (mount-view.ts) and the
 * uniconfig managers (uniconfig/routes.ts) differ only in the schema that decodes, how the input is
 * checked and what is invoked; keeping the rest here keeps their error envelopes and answers the same.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DataError, fault } from '../data/errors';
import { decodeJson } from '../data/json-decode';
import { encodeJson, toJsonValue } from '../data/json-encode';
import type { ContainerNode, DataNode } from '../data/tree';
import { encodeXml } from '../data/xml-encode';
import type { JsonObject } from '../hooks';
import type { LeafSchema, OperationSchema, SchemaContext, SchemaNode } from '../yang/schema';
import { decodeBody, readBody } from './body';
import type { RestconfError } from './errors';
import { requestType, responseType, type MediaType } from './media';
import { sendEmpty, sendText } from './respond';

export interface OperationCall {
  /** The operation invoked. */
  readonly op: OperationSchema;
  /** The schema the input and output are decoded in (a device's own under a mount point). */
  readonly schema: SchemaContext;
  /** The operation's request path, where faults of the body point. */
  readonly path: string;
  readonly bodyLimit: number;
  /** Refuses an input the operation cannot take (throws a `DataError`), before anything is invoked. */
  readonly checkInput: (input: ContainerNode) => void;
  /** Whether the input members handed to `invoke` carry metadata annotations (they do unless told). */
  readonly inputAttributes?: boolean;
  /** Runs the operation on the input members: its output members, or null when it has no output. */
  readonly invoke: (input: JsonObject) => Promise<JsonObject | null>;
  /** The answer's media type; negotiated from `Accept` after the invocation when absent. */
  readonly media?: MediaType;
  /** The status of an answer with output (200 unless told). */
  readonly status?: number;
  /**
   * How the output is encoded. `checked` decodes it against the schema first and answers the error
   * `mismatch` gives when it does not fit; `trusted` writes JSON straight from the members (an
   * implementation that builds them to the schema, whose large outputs should not be decoded twice).
   */
  readonly output: { readonly checked: (cause: unknown) => RestconfError } | 'trusted';
}

/** Reads, decodes and checks the input, invokes the operation and writes its answer. */
export async function callOperation(req: IncomingMessage, res: ServerResponse, call: OperationCall): Promise<void> {
  const input = await decodeInput(req, call);
  call.checkInput(input);
  const members = toJsonValue(input, { attributes: call.inputAttributes ?? true }) as Record<string, JsonObject>;
  const output = await call.invoke(Object.values(members)[0] ?? {});
  if (output === null) {
    sendEmpty(res, 204);
    return;
  }
  let media = call.media;
  const negotiate = (): MediaType => (media ??= responseType(req.headers.accept));
  const text = encodeOutput(call, output, negotiate);
  sendText(res, call.status ?? 200, negotiate().type, text);
}

/** The decoded `input` of the operation (an empty input when the body is empty). */
async function decodeInput(req: IncomingMessage, call: OperationCall): Promise<ContainerNode> {
  const { op, path } = call;
  const text = await readBody(req, call.bodyLimit);
  if (text.trim() === '') return { kind: 'container', schema: op.input, children: [] };
  const decoded = decodeBody(text, requestType(req.headers['content-type'], false), call.schema, { parent: op, parentPath: path });
  const node = decoded.root.children[0];
  if (decoded.root.children.length !== 1 || node?.schema !== op.input)
    throw new DataError(fault('invalid-value', path, `the body must hold '${op.module.name}:input' only`));
  return node as ContainerNode;
}

/** The output in the negotiated encoding (negotiated once the output is known to fit the schema). */
function encodeOutput(call: OperationCall, output: JsonObject, negotiate: () => MediaType): string {
  const { op, schema, path } = call;
  const member = `${op.module.name}:output`;
  if (call.output === 'trusted') {
    if (negotiate().encoding === 'json') return JSON.stringify({ [member]: output });
    return encodeXml(decodeJson({ [member]: output }, schema, { parent: op, parentPath: path }).node!, schema);
  }
  let node: DataNode | undefined;
  try {
    node = decodeJson({ [member]: output }, schema, { parent: op, parentPath: path }).node;
  } catch (e) {
    throw call.output.checked(e);
  }
  return negotiate().encoding === 'json' ? encodeJson(node!) : encodeXml(node!, schema);
}

/** Faults for the mandatory leaves among `leaves` the input lacks (`missing-element`, 400). */
export function checkMandatoryLeaves(input: ContainerNode, leaves: readonly SchemaNode[], path: string): void {
  const missing = leaves.filter((c): c is LeafSchema => c.kind === 'leaf' && c.mandatory && !input.children.some((n) => n.schema === c));
  if (missing.length > 0)
    throw new DataError(missing.map((c) => fault('missing-element', `${path}/input/${c.name}`, `mandatory input '${c.name}' is missing`)));
}
