// core/test/restconf/http-newcomer.test.ts on the Config datastore in PostgreSQL (suite.ts).
import { requestSuiteOnPostgres } from './suite';

requestSuiteOnPostgres('http-newcomer');
