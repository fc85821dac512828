/** What a page of the console is given to read from, and the time it is drawn at. */
import type { OperatorConnection } from '../ops/connect.ts';

export interface PageContext {
  /** The stage's state bucket and queues, with the operator's own credentials (packages/cli/src/ops/connect.ts). */
  readonly connection: OperatorConnection;
  readonly url: URL;
  /** Epoch ms the page is drawn at. */
  readonly now: number;
  /** ` --stage NAME` for a deployed stage, empty for the local stack: the CLI command that prints the same. */
  readonly stageFlag: string;
  /** Whether the console was started with actions allowed (`--allow-actions`). */
  readonly actions: boolean;
  /** Sent back with every form that changes something (with the Origin check, what refuses forged posts). */
  readonly formToken: string;
}
