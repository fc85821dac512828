/**
 * How test/integration/docs-commands.test.ts points a doc's commands at its test stack: the
 * documented default addresses turned into the stack's.
 */
import { describe, expect, it } from 'vitest';
import { withAddresses } from '../helpers/doc-commands.ts';

const DEFAULTS = ['http://127.0.0.1:3000', 'http://127.0.0.1:4010', 'http://127.0.0.1:4566'];

describe('withAddresses', () => {
  it("never rewrites an address it put in, whatever the stack's ports begin with", () => {
    // The API's ephemeral port begins with the simulator's default port, 4010.
    const stack = ['http://127.0.0.1:40105', 'http://127.0.0.1:38765', 'http://127.0.0.1:45661'];
    const addresses = Object.fromEntries(DEFAULTS.map((address, k) => [address, stack[k] as string]));

    expect(
      withAddresses(
        'curl http://127.0.0.1:3000/health && curl http://127.0.0.1:4010/api/v1/x --aws http://127.0.0.1:4566',
        addresses,
      ),
    ).toBe(
      'curl http://127.0.0.1:40105/health && curl http://127.0.0.1:38765/api/v1/x --aws http://127.0.0.1:45661',
    );
  });

  it('leaves an address alone whose port only begins with a default one', () => {
    const addresses = { 'http://127.0.0.1:3000': 'http://127.0.0.1:40105' };

    expect(withAddresses('curl http://127.0.0.1:30001/x http://127.0.0.1:3000', addresses)).toBe(
      'curl http://127.0.0.1:30001/x http://127.0.0.1:40105',
    );
  });
});
