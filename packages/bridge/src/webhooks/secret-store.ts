/**
 * Where the webhooks' secret material lives: a secret store, never the state bucket the endpoint
 * records, the public key and the delivery views are read from (docs/webhooks.md, "What is stored
 * where"). The port is three primitives on named secrets; its adapters are AWS Secrets Manager
 * (./secretsmanager/store.ts, deployed), files of mode 0600 (./files/store.ts, the local stack) and
 * {@link MemorySecretStore} (tests).
 *
 * Every secret is written once and never changed: a rotation creates a new secret and deletes the old
 * one when its overlap has passed; changed headers are a new secret and the old one is deleted at
 * once. So no earlier value survives in a store's version history (Secrets Manager keeps previous
 * versions of a changed secret), and deleting a secret removes every value it ever had.
 */

/** Named secrets, each written once (no SDK here). */
export interface SecretStore {
  /** The secret's value; undefined when there is none of that name. */
  read(name: string): Promise<string | undefined>;
  /** Creates the secret; false (and the stored value unchanged) when one of that name exists. */
  create(name: string, value: string): Promise<boolean>;
  /** Deletes the secret at once, with no recovery window; nothing happens when there is none. */
  delete(name: string): Promise<void>;
}

/**
 * The secrets in memory, for tests and for tools that build the flow from fakes.
 *
 * @example
 * ```ts
 * const secrets = new MemorySecretStore();
 * await secrets.create('webhooks/ep_1/s_1', 'whsec_…'); // true
 * ```
 */
export class MemorySecretStore implements SecretStore {
  readonly #values = new Map<string, string>();

  async read(name: string): Promise<string | undefined> {
    return this.#values.get(name);
  }

  async create(name: string, value: string): Promise<boolean> {
    if (this.#values.has(name)) return false;
    this.#values.set(name, value);
    return true;
  }

  async delete(name: string): Promise<void> {
    this.#values.delete(name);
  }

  /** Every name held (tests look for what was left behind). */
  names(): string[] {
    return [...this.#values.keys()].sort();
  }
}
