import { describe, expect, it, vi } from 'vitest';
import { TypedEmitter } from './typed-emitter.js';

describe('TypedEmitter', () => {
  it('delivers, unsubscribes and counts', () => {
    const events = new TypedEmitter<{ ping: number }>();
    const seen: number[] = [];
    const off = events.on('ping', (n) => seen.push(n));
    events.emit('ping', 1);
    expect(events.listenerCount('ping')).toBe(1);
    off();
    events.emit('ping', 2);
    expect(seen).toEqual([1]);
    expect(events.listenerCount('ping')).toBe(0);
  });

  it('once fires a single time', () => {
    const events = new TypedEmitter<{ ping: number }>();
    const listener = vi.fn();
    events.once('ping', listener);
    events.emit('ping', 1);
    events.emit('ping', 2);
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it('keeps going when a listener throws and reports the error', () => {
    const errors: unknown[] = [];
    const events = new TypedEmitter<{ ping: number }>((error) => errors.push(error));
    const after = vi.fn();
    events.on('ping', () => {
      throw new Error('boom');
    });
    events.on('ping', after);
    events.emit('ping', 1);
    expect(after).toHaveBeenCalledWith(1);
    expect(errors).toHaveLength(1);
  });
});
