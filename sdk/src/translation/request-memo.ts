/**
 * What translation handlers derive from device output, held for one request. Within a read every
 * reader runs once per list entry and asks the (request-cached) session for the same `show` text, so a
 * unit parses that text once and shares the result; holding it here instead of in the unit's module
 * keeps one device's parse from being served to another and lets it go when the request ends.
 */
export class RequestMemo {
  readonly #held = new Map<string, { readonly input: unknown; readonly value: unknown }>();

  /**
   * What `make` derives from `input`, made once per key while the input stays the same (`===`: the
   * session returns the same string for a repeated command). A different input replaces the held value.
   * Callers share the value, so they must only read it; a key names one kind of derived value.
   */
  derive<I, T>(key: string, input: I, make: (input: I) => T): T {
    const held = this.#held.get(key);
    if (held && held.input === input) return held.value as T;
    const value = make(input);
    this.#held.set(key, { input, value });
    return value;
  }
}
