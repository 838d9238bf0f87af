// The SSE messages of events (restconf/streams-sse.ts): one message per event with its id and its
// text in data lines; a batch's bytes are its events' messages one after the other; built once per
// encoding and shared, so a second subscriber of the same event or batch gets the very same Buffer.
import test from 'ava';
import type { StreamEvent } from '../../src/events';
import { sseMessage, sseMessages } from '../../src/restconf/streams-sse';

const event = (id: number): StreamEvent => ({ id, stream: 's', eventTime: '2026-11-27T10:00:00Z', content: { 'x:n': id } });
const text = (e: StreamEvent) => `first ${e.id}\nsecond ${e.id}`;

test('an event is one message: id, a data line per line of its text, a blank line', (t) => {
  t.is(sseMessages([event(7)], 'json', text).toString(), 'id: 7\ndata: first 7\ndata: second 7\n\n');
  t.is(sseMessage({ event: 'error' }, 'a\r\nb'), 'event: error\ndata: a\ndata: b\n\n');
});

test("a batch's bytes are its messages in order, built once per event, batch and encoding", (t) => {
  const events = [event(1), event(2), event(3)];
  let encoded = 0;
  const counting = (e: StreamEvent) => {
    encoded += 1;
    return text(e);
  };
  const bytes = sseMessages(events, 'json', counting);
  t.is(bytes.toString(), events.map((e) => sseMessage({ id: e.id }, text(e))).join(''));
  t.is(sseMessages(events, 'json', counting), bytes, 'the same batch gives the same Buffer');
  t.is(sseMessages([events[1]!], 'json', counting), sseMessages([events[1]!], 'json', counting));
  t.is(encoded, 3, 'each event was encoded once');
  t.not(sseMessages(events, 'xml', counting), bytes, 'each encoding has its own messages');
  t.is(encoded, 6);
});
