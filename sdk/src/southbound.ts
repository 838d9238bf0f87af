/**
 * Describing a southbound plugin to the core: `defineSouthbound` checks and freezes the descriptor a
 * southbound registers through `hooks.device.southbounds` (its install container, topology, settings
 * module, models, dry run, status leaves and rollback semantics; see the core's SouthboundDescriptor),
 * and `registerSouthbound` taps it. The core names no southbound: it learns them all from here.
 *
 * Rollback semantics come in two kinds, and each has its helper so that every southbound reports them
 * alike: a device that undoes a failed edit itself (NETCONF's candidate datastore, rollback-on-error)
 * and a southbound that undoes its own steps (a CLI sends each step's undo commands), which reports
 * what it sent in an {@link UndoReport}.
 */
import type { RosettaHooks, SouthboundDescriptor, WriteRollback } from '@rosetta/core';

/** What a southbound that undoes its own steps did after the device refused one. */
export interface UndoReport {
  /** Undo commands sent, in order. */
  readonly sent: readonly string[];
  /** Undo commands the device refused too, with its message. */
  readonly failed: ReadonlyArray<{ readonly command: string; readonly message: string }>;
  /** Why no (or not all) undo could be sent: a broken session, missing inverse writers. */
  readonly incomplete?: string;
}

/** The rollback an {@link UndoReport} amounts to: complete when every undo was sent and accepted. */
export function undoReportRollback(report: UndoReport): WriteRollback {
  const incomplete = report.incomplete !== undefined && report.incomplete !== '' ? report.incomplete : undefined;
  if (report.failed.length > 0 || incomplete !== undefined) {
    const refused = report.failed.map((f) => `${JSON.stringify(f.command.trim())}: ${f.message}`);
    return {
      status: 'fail',
      detail: [refused.length > 0 ? `${refused.length} undo command(s) refused (${refused.join('; ')})` : '', incomplete ?? '']
        .filter((x) => x !== '')
        .join('; '),
    };
  }
  return {
    status: 'complete',
    detail: report.sent.length === 0 ? 'nothing had been applied' : `undone with ${report.sent.length} command(s)`,
  };
}

/** A rollback nobody reported: the southbound cannot say what the device holds. */
export const UNKNOWN_ROLLBACK: WriteRollback = Object.freeze({ status: 'unknown', detail: 'the southbound gave no rollback report' });

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * A checked, frozen descriptor. Throws naming the field when one is missing or malformed, so a plugin
 * with a bad descriptor fails to load instead of serving half-described devices.
 */
export function defineSouthbound(descriptor: SouthboundDescriptor): SouthboundDescriptor {
  for (const field of ['protocol', 'topology', 'settingsModule'] as const) {
    if (typeof descriptor[field] !== 'string' || !NAME.test(descriptor[field]))
      throw new TypeError(`southbound descriptor: ${field} must be a YANG-style name, got ${JSON.stringify(descriptor[field])}`);
  }
  // a container another module augments into install-node's input is named module-qualified
  const container = descriptor.installContainer;
  if (typeof container !== 'string' || !container.split(':').every((part) => NAME.test(part)) || container.split(':').length > 2)
    throw new TypeError(`southbound descriptor: installContainer must be a (module-qualified) name, got ${JSON.stringify(container)}`);
  if (descriptor.models !== 'translation-units' && descriptor.models !== 'device')
    throw new TypeError(`southbound descriptor: models must be 'translation-units' or 'device', got ${JSON.stringify(descriptor.models)}`);
  const dryRun = descriptor.dryRun;
  if (typeof dryRun?.operation !== 'string' || !/^[^:\s]+:[^:\s]+$/.test(dryRun.operation))
    throw new TypeError(`southbound descriptor: dryRun.operation must be module:rpc, got ${JSON.stringify(dryRun?.operation)}`);
  if (dryRun.input !== 'edits' && dryRun.input !== 'documents')
    throw new TypeError(`southbound descriptor: dryRun.input must be 'edits' or 'documents', got ${JSON.stringify(dryRun.input)}`);
  if (typeof dryRun.output !== 'string' || dryRun.output === '')
    throw new TypeError('southbound descriptor: dryRun.output must name a member');
  if (typeof descriptor.renderStatus !== 'function' || typeof descriptor.rollbackOf !== 'function')
    throw new TypeError('southbound descriptor: renderStatus and rollbackOf must be functions');
  return Object.freeze({ ...descriptor, dryRun: Object.freeze({ ...dryRun }) });
}

/** Registers a southbound's descriptor in a plugin's hooks (its `setup`), checked by {@link defineSouthbound}. */
export function registerSouthbound(hooks: RosettaHooks, descriptor: SouthboundDescriptor): SouthboundDescriptor {
  const checked = defineSouthbound(descriptor);
  hooks.device.southbounds.tap(checked.protocol, (registered) => [...registered, checked]);
  return checked;
}
