/**
 * Whether two parsed JSON values are the same document written the same way: what JSON.stringify would
 * write for each is the same text (members and array items in order), found without writing it. Stores
 * use it to keep one object for equal documents, so memory that grows with the number of devices is not
 * paid twice for a configuration held in two places. It takes any values (the data layer sits below the
 * hooks that name the JSON type).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const names = Object.keys(x);
  const others = Object.keys(y);
  if (names.length !== others.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== others[i] || !jsonEqual(x[names[i]!], y[names[i]!])) return false;
  return true;
}
