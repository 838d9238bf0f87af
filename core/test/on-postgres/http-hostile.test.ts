// core/test/restconf/http-hostile.test.ts on the Config datastore in PostgreSQL (suite.ts).
import { requestSuiteOnPostgres } from './suite';

requestSuiteOnPostgres('http-hostile');
