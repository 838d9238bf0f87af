// core/test/restconf/http-audit.test.ts on the Config datastore in PostgreSQL (suite.ts).
import { requestSuiteOnPostgres } from './suite';

requestSuiteOnPostgres('http-audit');
