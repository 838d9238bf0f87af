/**
 * The resources that describe the server rather than data: `/.well-known/host-meta` (RFC 8040 §3.1,
 * pointing at `/rests`), the API root `/rests`, `/rests/yang-library-version`, and the WADL-style
 * description that `OPTIONS /rests` answers (the `Allow` sets are options.ts's).
 */
import type { IncomingMessage } from 'node:http';
import { DATA_TYPES, PATCH_TYPES, type MediaType } from './media';

/** The yang-library revision the server implements (RFC 8525). */
export const YANG_LIBRARY_VERSION = '2019-01-04';
const RESTCONF_NS = 'urn:ietf:params:xml:ns:yang:ietf-restconf';

export const HOST_META = `<?xml version="1.0" encoding="UTF-8"?>
<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0"><Link rel="restconf" href="/rests"/></XRD>`;

/** The scheme and authority a request was sent to (`https://host:port`), from its socket and Host header. */
export function requestOrigin(req: IncomingMessage): string {
  return `${'encrypted' in req.socket && req.socket.encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

export function yangLibraryVersion(media: MediaType): string {
  return media.encoding === 'json'
    ? JSON.stringify({ 'ietf-restconf:yang-library-version': YANG_LIBRARY_VERSION })
    : `<yang-library-version xmlns="${RESTCONF_NS}">${YANG_LIBRARY_VERSION}</yang-library-version>`;
}

export function apiRoot(media: MediaType): string {
  return media.encoding === 'json'
    ? JSON.stringify({ 'ietf-restconf:restconf': { data: {}, operations: {}, 'yang-library-version': YANG_LIBRARY_VERSION } })
    : `<restconf xmlns="${RESTCONF_NS}"><data/><operations/><yang-library-version>${YANG_LIBRARY_VERSION}</yang-library-version></restconf>`;
}

interface WadlResource {
  readonly path: string;
  readonly methods: ReadonlyArray<{ readonly name: string; readonly request?: readonly string[]; readonly response?: readonly string[] }>;
}

const DATA = DATA_TYPES.map((m) => m.type);
const WITH_PATCH = [...DATA, ...PATCH_TYPES.map((m) => m.type)];

const RESOURCES: readonly WadlResource[] = [
  {
    path: 'data',
    methods: [
      { name: 'GET', response: DATA },
      { name: 'POST', request: DATA },
      { name: 'PUT', request: DATA },
    ],
  },
  {
    path: 'data/{identifier}',
    methods: [
      { name: 'GET', response: DATA },
      { name: 'PUT', request: DATA },
      { name: 'POST', request: DATA, response: DATA },
      { name: 'PATCH', request: WITH_PATCH, response: DATA },
      { name: 'DELETE' },
      { name: 'OPTIONS' },
    ],
  },
  { path: 'operations', methods: [{ name: 'GET', response: DATA }] },
  { path: 'operations/{identifier}', methods: [{ name: 'POST', request: DATA, response: DATA }, { name: 'OPTIONS' }] },
  { path: 'yang-library-version', methods: [{ name: 'GET', response: DATA }] },
];

/** The WADL-style XML that `OPTIONS /rests` answers: each resource, its methods and media types. */
export function wadl(base: string): string {
  let out = `<?xml version="1.0" encoding="UTF-8"?>\n<application xmlns="http://wadl.dev.java.net/2009/02">\n  <resources base="${base}">\n`;
  for (const r of RESOURCES) {
    out += `    <resource path="${r.path}">\n`;
    if (r.path.includes('{identifier}'))
      out += '      <param name="identifier" style="template" type="xs:string" xmlns:xs="http://www.w3.org/2001/XMLSchema"/>\n';
    for (const m of r.methods) {
      out += `      <method name="${m.name}">\n`;
      if (m.request) out += `        <request>${m.request.map((t) => `<representation mediaType="${t}"/>`).join('')}</request>\n`;
      if (m.response) out += `        <response>${m.response.map((t) => `<representation mediaType="${t}"/>`).join('')}</response>\n`;
      out += '      </method>\n';
    }
    out += '    </resource>\n';
  }
  return `${out}  </resources>\n</application>\n`;
}
