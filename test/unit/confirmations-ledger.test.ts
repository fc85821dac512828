import { MemoryStateStore } from '../../lib/state/memory.ts';
import { describeConfirmationLedger } from '../helpers/confirmation-ledger-suite.ts';

describeConfirmationLedger('confirmation ledger on the memory store', () => new MemoryStateStore());

describeConfirmationLedger(
  'confirmation ledger on a memory store that yields before every operation',
  () => new MemoryStateStore({ beforeOperation: () => new Promise((resolve) => setImmediate(resolve)) }),
);
