/**
 * YANG built-in types: range and length restrictions, XSD pattern translation, and the value codecs
 * (JSON and lexical forms, canonical values, ordering). The compiler uses the restriction parsers and
 * `translatePattern`; the data codecs, URI parser and validation use the value functions.
 */
export {
  builtinRange,
  parseRange,
  parseLength,
  parseDecimal,
  formatDecimal,
  formatRange,
  formatLength,
  inRange,
  inLength,
  isNumericBuiltin,
  FULL_LENGTH,
} from './restrictions';
export { translatePattern, parseXsdRegex, type XsdNode } from './xsd-regex';
export { linearMatcher } from './xsd-nfa';
export { patternMatches } from './codecs';
export { valueFromJson, valueFromText, valueToJson, valueToText, compareValues, type ValueResult } from './values';
export { parseInstanceIdentifier, type IidStep, type IidPredicate } from './instance-identifier';
