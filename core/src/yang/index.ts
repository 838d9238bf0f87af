/**
 * The YANG engine's public face: parse modules, find them in search directories, compile a module
 * set into a schema context, print tree diagrams, and turn leaf values to and from their encodings.
 */
export * from './statement';
export * from './schema';
export { parseYang } from './parser';
export type { ParseResult, ParseOptions } from './parser';
export { ModuleRepository } from './repository';
export type { ModuleSource } from './repository';
export { compileSchema, clearSchemaCache } from './compiler';
export type { CompileRequest } from './compiler';
