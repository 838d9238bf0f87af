/**
 * The authentication plugin: taps the core's `server.authenticate` hook, which runs before every route
 * when the configuration has an enabled `auth` object (users with scrypt password hashes and roles,
 * optional TLS certificate subjects; see core/src/service/auth-config.ts for the shape and
 * `rosetta hash-password` for making hashes). Answers 401 with a Basic challenge for missing or wrong
 * credentials, 403 when the user's role forbids the method.
 *
 * The `auth` object comes with each request (the core holds the configuration); it is compiled once per
 * object. A fault in it (possible only if this plugin is newer or stricter than the core's check) makes
 * every request fail with a message naming the field: never a request let through unchecked.
 */
import { definePlugin, type JsonValue } from '@rosetta/sdk';
import { Authenticator } from './authenticator';
import { compileAuthSettings } from './users';

export { Authenticator, MAX_ATTEMPTS_PER_ADDRESS, parseBasic } from './authenticator';
export { FailureDelays, type FailureDelayOptions } from './failure-delay';
export { decoyHash, parsePasswordHash, verifyPassword, type PasswordHash } from './password';
export {
  AuthConfigError,
  compileAuthSettings,
  normaliseCertificateSubject,
  normaliseConfiguredSubject,
  type AuthSettings,
  type Role,
  type User,
} from './users';

export default definePlugin({
  setup(api) {
    const compiled = new WeakMap<object, Authenticator>();
    const authenticatorFor = (config: Readonly<Record<string, JsonValue>>): Authenticator => {
      let found = compiled.get(config);
      if (!found) {
        found = new Authenticator(compileAuthSettings(config), (address, failures) => {
          if ((failures & (failures - 1)) === 0) api.log.warn(`${failures} failed authentication attempt(s) in a row from ${address}`);
        });
        compiled.set(config, found);
        api.log.info(`Basic authentication for ${(config['users'] as unknown[]).length} user(s)`);
      }
      return found;
    };
    api.hooks.server.authenticate.tapPromise('auth', (ctx) => authenticatorFor(ctx.config).authenticate(ctx));
  },
});
