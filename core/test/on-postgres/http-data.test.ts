// core/test/restconf/http-data.test.ts on the Config datastore in PostgreSQL (suite.ts).
import { requestSuiteOnPostgres } from './suite';

requestSuiteOnPostgres('http-data');
