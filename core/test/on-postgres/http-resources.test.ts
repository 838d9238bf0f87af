// core/test/restconf/http-resources.test.ts on the Config datastore in PostgreSQL (suite.ts).
import { requestSuiteOnPostgres } from './suite';

requestSuiteOnPostgres('http-resources');
