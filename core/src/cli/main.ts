/**
 * The `rosetta` command: dispatches sub-commands. Each sub-command lives in its own file and returns
 * the process exit code; nothing here knows what a sub-command does.
 */
import { hashPasswordCommand } from './hash-password-command';
import { secretsCommand } from './secrets-command';
import { startCommand } from './start-command';
import { storeCommand } from './store-command';
import { yangCommand } from './yang-command';

const USAGE = `usage: rosetta <command> [options]

commands:
  start           run the RESTCONF service (port 8181, ./data, ./plugins.json)
  yang tree       print RFC 8340 tree diagrams of YANG modules
  yang check      compile YANG modules and report their faults
  yang validate   validate a JSON or XML data document against YANG modules
  hash-password   scrypt-hash a password (read from standard input) for auth.users[].passwordHash
  store check     report the state of each file of a data directory, changing nothing
  store repair    cut a damaged journal at its damage, keeping a copy (--keep-damaged)
  secrets rotate-key  seal every stored secret again under a new key (--new-key-file)

Run 'rosetta <command> --help' for a command's options.`;

/** Runs the command line `argv` (without node and script) and resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'yang':
      return yangCommand(rest);
    case 'start':
      return startCommand(rest);
    case 'hash-password':
      return hashPasswordCommand(rest);
    case 'store':
      return storeCommand(rest);
    case 'secrets':
      return secretsCommand(rest);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      console.log(USAGE);
      return command === undefined ? 2 : 0;
    default:
      console.error(`rosetta: unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}
