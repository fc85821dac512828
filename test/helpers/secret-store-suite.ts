/**
 * One behaviour suite for every `SecretStore` implementation (packages/bridge/src/webhooks/secret-store.ts):
 * call it with a factory that returns an empty store. Memory, files (test/unit/webhook-secret-store.test.ts)
 * and Secrets Manager on moto (test/integration/webhook-secrets-moto.test.ts) run it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { SecretStore } from '../../packages/bridge/src/webhooks/index.ts';

export function describeSecretStoreBehaviour(
  name: string,
  makeStore: () => SecretStore | Promise<SecretStore>,
): void {
  describe(name, () => {
    let store: SecretStore;

    beforeEach(async () => {
      store = await makeStore();
    });

    it('answers undefined for a name that holds nothing', async () => {
      // act / assess
      expect(await store.read('webhooks/ep_absent/s_1')).toBeUndefined();
    });

    it('creates a secret once: a second create of the name is refused and leaves the first value', async () => {
      // act
      const first = await store.create('webhooks/ep_1/s_1', 'whsec_first');
      const second = await store.create('webhooks/ep_1/s_1', 'whsec_second');

      // assess
      expect([first, second]).toEqual([true, false]);
      expect(await store.read('webhooks/ep_1/s_1')).toBe('whsec_first');
    });

    it('agrees on one value when two first writers race', async () => {
      // act
      const results = await Promise.all([
        store.create('webhooks/signing-key', 'a'),
        store.create('webhooks/signing-key', 'b'),
      ]);

      // assess
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.read('webhooks/signing-key')).toBe(results[0] ? 'a' : 'b');
    });

    it('deletes a secret at once, so nothing of it is readable, and deleting again is no error', async () => {
      // prepare
      await store.create('webhooks/ep_2/s_1', 'whsec_gone');
      await store.create('webhooks/ep_2/s_2', 'whsec_kept');

      // act
      await store.delete('webhooks/ep_2/s_1');
      await store.delete('webhooks/ep_2/s_1');

      // assess
      expect(await store.read('webhooks/ep_2/s_1')).toBeUndefined();
      expect(await store.read('webhooks/ep_2/s_2')).toBe('whsec_kept');
    });
  });
}
