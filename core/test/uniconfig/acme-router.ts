/**
 * The small NETCONF device model the uniconfig tests run a simulated router with (hostname and
 * location), its starting configuration, the uniconfig path of node N1's configuration, and its install.
 */
import type { MountService } from '../mount/fixture';
import { netconfNodeInput } from '../mount/fixture';

export const ACME_ROUTER_YANG = `module acme-router {
  yang-version 1.1;
  namespace "urn:acme:router";
  prefix ar;
  container system {
    leaf hostname { type string; }
    leaf location { type string; }
  }
}`;
export const ACME_ROUTER_CONFIG = '<system xmlns="urn:acme:router"><hostname>n1</hostname><location>lab</location></system>';
/** Node N1's configuration in the uniconfig topology. */
export const N1_CONFIGURATION = '/rests/data/network-topology:network-topology/topology=uniconfig/node=N1/configuration';

/** Installs node N1 (NETCONF, admin/pw on 127.0.0.1:`port`); answers install-node's reply. */
export function installN1(svc: MountService, port: number) {
  return installAcmeRouter(svc, 'N1', port);
}

/** Installs node `nodeId` (NETCONF, admin/pw on 127.0.0.1:`port`); answers install-node's reply. */
export function installAcmeRouter(svc: MountService, nodeId: string, port: number) {
  return svc.request('POST', '/rests/operations/connection-manager:install-node', {
    input: netconfNodeInput(nodeId, port),
  });
}
