import { describe, expect, it } from 'vitest';
import { decodeMessage, encodeMessage } from '../../../shared/rpc/codec.js';
import type { RpcMessage } from '../../../shared/rpc/messages.js';

describe('WebSocket codec', () => {
  it('sends plain messages as JSON text', () => {
    const m: RpcMessage = { kind: 'req', id: 7, service: 'system', method: 'ping', args: {} };
    const frame = encodeMessage(m);
    expect(typeof frame).toBe('string');
    expect(decodeMessage(frame)).toEqual(m);
  });

  it('moves binary data out of JSON and restores its type and bytes', () => {
    const floats = new Float32Array([1.5, -2, Math.PI, NaN]);
    const buffer = new Uint8Array([1, 2, 3]).buffer;
    const view = new Uint16Array(new Uint16Array([9, 8, 7, 6]).buffer, 2, 2); // offset view
    const m: RpcMessage = { kind: 'evt', name: 'snapshot', payload: { floats, nested: { buffer, view }, n: 3 } };
    const frame = encodeMessage(m);
    expect(frame).toBeInstanceOf(Uint8Array);
    const big = encodeMessage({ kind: 'evt', name: 's', payload: { data: new Float32Array(100_000).fill(0.123456) } }) as Uint8Array;
    expect(big.length).toBeLessThan(400_000 + 200); // raw bytes, not JSON-encoded numbers
    const back = decodeMessage(frame) as { payload: { floats: Float32Array; nested: { buffer: ArrayBuffer; view: Uint16Array }; n: number } };
    expect(back.payload.floats).toBeInstanceOf(Float32Array);
    expect([...back.payload.floats].slice(0, 3)).toEqual([1.5, -2, Math.fround(Math.PI)]);
    expect(Number.isNaN(back.payload.floats[3])).toBe(true);
    expect([...new Uint8Array(back.payload.nested.buffer)]).toEqual([1, 2, 3]);
    expect([...back.payload.nested.view]).toEqual([8, 7]);
    expect(back.payload.n).toBe(3);
  });

  it('rejects malformed frames', () => {
    expect(() => decodeMessage(new Uint8Array([1, 2, 3]))).toThrow();
    const good = encodeMessage({ kind: 'evt', name: 'x', payload: new Float32Array(8) }) as Uint8Array;
    expect(() => decodeMessage(good.subarray(0, good.length - 8))).toThrow(/truncated/);
    const badMagic = good.slice();
    badMagic[0] ^= 0xff;
    expect(() => decodeMessage(badMagic)).toThrow(/magic/);
  });
});
