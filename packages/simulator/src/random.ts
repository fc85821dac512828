/**
 * Seeded randomness for the simulator: the same seed gives the same ids and the same faults, so a
 * failing test or benchmark can be replayed exactly.
 */

/** A source of numbers in [0, 1), like `Math.random`. */
export type Random = () => number;

/**
 * mulberry32: a tiny 32-bit PRNG, plenty for ids and fault rolls (not for cryptography).
 *
 * @example
 * const next = mulberry32(42);
 * next(); // always the same first number for seed 42
 */
export function mulberry32(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A version-4-shaped UUID drawn from `random`, so ids repeat across runs with the same seed.
 *
 * @example
 * seededUuid(mulberry32(1)); // 'xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx'
 */
export function seededUuid(random: Random): string {
  const bytes = new Uint8Array(16);
  for (let i = 0; i < 16; i += 1) bytes[i] = Math.floor(random() * 256);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
