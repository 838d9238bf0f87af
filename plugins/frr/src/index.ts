/**
 * The FRRouting translation-unit plugin (device type `frr`, versions >=8.0.0 <11): interfaces, static
 * routes, BGP and VRFs as the OpenConfig-structured models in ../yang, read from FRR's running config and
 * JSON show commands and written as vtysh configuration commands. `errorPatterns` are the lines by which
 * vtysh says a command failed, checked against FRR 8.4.4 (see transcripts/); each matches the whole line,
 * so the match is the device's message.
 */
import { definePlugin, defineTranslationUnit } from '@rosetta/sdk';
import { interfacePaths } from './interfaces';
import { networkInstancePaths } from './network-instances';

export const FRR_ERROR_PATTERNS: readonly RegExp[] = [
  // `% Unknown command: ...`, `% Invalid input ...`, `% Command incomplete: ...`, `% Ambiguous command: ...`,
  // `% Can't find BGP instance`, `% Configuration failed.`, `% Specify remote-as or peer-group commands first`,
  // `% Refusing to remove a non-existent route`, `% Malformed address`
  /^% .*$/m,
  // a second `router bgp` with another AS (no `%` in front)
  /^BGP is already running; AS is \d+.*$/m,
  // a command for a daemon that is not running, on a login made while it was down (`bgpd is not running`):
  // vtysh then sends nothing, and a write must not pass for done
  /^\w+ is not running$/m,
];

/**
 * What vtysh prints when the daemons behind it are gone (checked on FRR 8.4.4 by killing them under a
 * logged-in session): every command that needs a daemon prints `Warning: connecting to zebra...failed!`
 * (then `zebra is not running` for a show), and `show running-config` prints only vtysh's own lines, so
 * the device would read as empty. A fresh login with no daemon at all prints `Exiting: failed to connect to
 * any daemons.` and closes.
 */
export const FRR_UNUSABLE_PATTERNS: readonly RegExp[] = [
  /^Warning: connecting to \S+\.\.\.failed!.*$/m,
  /^Exiting: failed to connect to any daemons.*$/m,
];

export const unit = defineTranslationUnit({
  paths: { ...interfacePaths, ...networkInstancePaths },
  errorPatterns: FRR_ERROR_PATTERNS,
  unusablePatterns: FRR_UNUSABLE_PATTERNS,
  // vtysh reads typed-ahead lines in order, each echoed after the previous prompt (checked on FRR 8.4.4)
  typeAhead: true,
});

export default definePlugin({ translationUnit: unit });
