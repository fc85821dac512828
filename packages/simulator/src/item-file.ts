/**
 * The simulator's items kept in a file across restarts (`itemsFile`, the local stack's `--data-dir`):
 * read once at start, written whole after every import that created or updated items. The items are
 * what the bridge's records point at (a publication of an imported item), so a restarted stack whose
 * S3 and SQS state survived must not have forgotten them. Gatherings, publications and reviews are
 * not kept: the bridge never reads them back after a restart.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Item } from '@pds-bridge/bridge/pds';
import type { SimulatorState } from './state.ts';

/**
 * Adds the items stored in `file` to `state` (none when it does not exist yet).
 *
 * @throws Error naming the file when it is not a JSON array of items
 */
export async function loadItems(state: SimulatorState, file: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${file} is not JSON (${(error as Error).message}): delete it to start without the items it kept`,
    );
  }
  if (!Array.isArray(items)) {
    throw new Error(`${file} is not a JSON array of items: delete it to start without the items it kept`);
  }
  for (const item of items as Item[]) state.addItem(item);
  return items.length;
}

/** Writes the items of `state` to a file, one write at a time, each replacing the file whole. */
export class ItemFile {
  readonly #file: string;
  readonly #state: SimulatorState;
  #writing: Promise<void> = Promise.resolve();

  constructor(state: SimulatorState, file: string) {
    this.#state = state;
    this.#file = file;
  }

  /** Writes the items as they are now, after any write in progress. */
  save(): Promise<void> {
    const next = this.#writing.then(() => this.#write());
    this.#writing = next.catch(() => undefined);
    return next;
  }

  async #write(): Promise<void> {
    await mkdir(dirname(this.#file), { recursive: true });
    const temporary = `${this.#file}.${process.pid}.tmp`;
    await writeFile(temporary, JSON.stringify([...this.#state.items.values()]));
    // A rename replaces the file whole: a kill mid-write leaves the previous items, never half a file.
    await rename(temporary, this.#file);
  }
}
