import { describe, expect, it } from 'vitest';
import type { AgentIO } from '../../../src/host/agent/io.js';
import { progressRelay } from '../../../src/host/agent/progress.js';
import type { AgentLine } from '../../../src/protocol/lines.js';
import { FakeClock } from '../../support/fake-clock.js';

function relay() {
  const lines: AgentLine[] = [];
  const io: AgentIO = { send: (l) => void lines.push(l), input: (async function* () {})() };
  const clock = new FakeClock(0);
  const send = progressRelay(io, clock, 'pull', 'pull');
  const messages = () => lines.map((l) => (l.type === 'event' ? l.message : ''));
  return { send, clock, messages, lines };
}

describe('progress relayed from a long host command', () => {
  it('sends at most one line a second, but every line that names an error', () => {
    const { send, clock, messages } = relay();
    send('app Pulling');
    send('layer 1 10%');
    clock.advance(400);
    send('layer 1 50%');
    send('Error response from daemon: manifest unknown');
    clock.advance(700);
    send('layer 1 90%');
    expect(messages()).toEqual([
      'pull: app Pulling',
      'pull: Error response from daemon: manifest unknown',
      'pull: layer 1 90%',
    ]);
  });

  it('never sends the same line twice in a row, nor an empty one', () => {
    const { send, clock, messages } = relay();
    send('app Pulled');
    clock.advance(5_000);
    send('app Pulled');
    send('   ');
    expect(messages()).toEqual(['pull: app Pulled']);
  });

  it('escapes control characters, masks a URL password and cuts a long line', () => {
    const { send, clock, messages, lines } = relay();
    send('\u001b[2Kpulling https://bot:hunter2@registry.example/app');
    clock.advance(1_000);
    send('x'.repeat(500));
    const [first, second] = messages();
    expect(first).not.toContain('hunter2');
    expect(first).not.toContain('\u001b');
    expect(first).toContain('bot:***@registry.example');
    expect(second!.length).toBeLessThanOrEqual(170);
    expect(second!.endsWith('…')).toBe(true);
    expect(lines[0]).toMatchObject({ type: 'event', level: 'info', event: 'pull' });
  });
});
