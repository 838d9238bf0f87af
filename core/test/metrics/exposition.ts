/**
 * Reading the Prometheus text exposition (format 0.0.4) in the metrics tests: every line is checked
 * against the format before its sample is taken, so a scrape that parses is one Prometheus would take.
 */
/**
 * A sample line and a HELP/TYPE line of the text exposition format 0.0.4. prom-client writes an unset
 * value (the event-loop lag before its first sample, seen by a scrape right after start) as `Nan`,
 * which Prometheus reads as NaN (its parser's float reading ignores case), so the check takes it too.
 */
const SAMPLE =
  /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")(,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\["\\n])*")*,?\})? (-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?|NaN|Nan|\+Inf|-Inf)( -?[0-9]+)?$/;
const COMMENT = /^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped))$/;

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of an exposition, each line checked against the format first. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line === '') continue; // the format ignores empty lines; prom-client puts one between metrics
    if (line.startsWith('#')) {
      if (!COMMENT.test(line)) throw new Error(`not a HELP or TYPE line: ${line}`);
      continue;
    }
    if (!SAMPLE.test(line)) throw new Error(`not a sample line: ${line}`);
    const brace = line.indexOf('{');
    const space = line.lastIndexOf(' ');
    const name = brace < 0 ? line.slice(0, line.indexOf(' ')) : line.slice(0, brace);
    const labels: Record<string, string> = {};
    if (brace >= 0)
      for (const m of line.slice(brace, line.lastIndexOf('}') + 1).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
        labels[m[1]!] = m[2]!;
    samples.push({ name, labels, value: Number(line.slice(space + 1)) });
  }
  return samples;
}
