/**
 * The real FRR peer as the live tests and the transcript recorder reach it: its login, and the lease of
 * the machine's one peer through the SDK's shared helper (an inter-process lock, the peer restarted at
 * its baseline configuration, stopped on release only if the lease started it).
 */
import { frrPeerLogin } from '@rosetta/sdk/testing';

export { acquireFrrPeer, frrPeerUnavailable, type FrrPeerLease } from '@rosetta/sdk/testing';

export const PEER = { ...frrPeerLogin(), timeoutMs: 15_000 } as const;
