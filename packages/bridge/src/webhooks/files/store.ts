/**
 * The secret store as files of mode 0600 in one folder of mode 0700 (the local stack, `npm start`:
 * no account needed). One file per secret; a name's `/` become folders. Created with the exclusive
 * flag, so two first writers agree on one value, as with Secrets Manager.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { SecretStore } from '../secret-store.ts';

/**
 * @example
 * ```ts
 * const secrets = new FileSecretStore('.local/data/webhook-secrets');
 * await secrets.create('webhooks/signing-key', '{…}'); // true, written with mode 0600
 * ```
 */
export class FileSecretStore implements SecretStore {
  readonly #root: string;

  constructor(directory: string) {
    this.#root = resolve(directory);
  }

  #file(name: string): string {
    const file = resolve(this.#root, ...name.split('/'));
    if (!file.startsWith(this.#root + sep) || !/^[\w.@+=/-]+$/.test(name)) {
      throw new TypeError(`Not a secret name: ${JSON.stringify(name)}`);
    }
    return `${file}.secret`;
  }

  async read(name: string): Promise<string | undefined> {
    try {
      return await readFile(this.#file(name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async create(name: string, value: string): Promise<boolean> {
    const file = this.#file(name);
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    try {
      await writeFile(file, value, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  }

  async delete(name: string): Promise<void> {
    await rm(this.#file(name), { force: true });
  }
}

/** The folder of the secret store inside a local stack's data folder. */
export function localSecretsDirectory(dataDir: string): string {
  return join(dataDir, 'webhook-secrets');
}
