/**
 * EventBridge output in the local stack. The emulator (fauxqs) has no EventBridge, so the output is
 * on only when a backend is named (`npm start -- --eventbridge http://127.0.0.1:5000`, or
 * LOCAL_EVENTBRIDGE_ENDPOINT): moto_server, whose EventBridge delivers rules to SQS targets. The stack
 * creates its bus there before the handlers start and points them at it; without a backend, a
 * configuration that sends events to EventBridge is refused with the fix (docs/local-stack.md).
 */
import {
  CreateEventBusCommand,
  DescribeEventBusCommand,
  EventBridgeClient,
} from '@aws-sdk/client-eventbridge';
import { LOCAL_AWS_CREDENTIALS } from './environment.ts';
import { LocalEventBridgeError } from './errors.ts';

/** The bus the local stack creates on the backend. */
export const LOCAL_EVENT_BUS = 'pds-bridge-local-events';

/** How to get a backend, for the error messages. */
export const LOCAL_EVENTBRIDGE_FIX =
  "start moto_server (pip install 'moto[server]'; moto_server -H 127.0.0.1 -p 5000) and pass --eventbridge http://127.0.0.1:5000 (or set LOCAL_EVENTBRIDGE_ENDPOINT)";

/**
 * Why the environment asks for EventBridge output (EVENT_DESTINATIONS naming `eventbridge` or
 * `both`), or `undefined` when it does not.
 *
 * @example
 * ```ts
 * eventBridgeRequested({ EVENT_DESTINATIONS: 'sqs,publication=both' }); // 'EVENT_DESTINATIONS=sqs,publication=both'
 * ```
 */
export function eventBridgeRequested(env: Record<string, string | undefined>): string | undefined {
  const destinations = env.EVENT_DESTINATIONS?.trim();
  if (destinations && /(^|[,=\s])(eventbridge|both)(\s*(,|$))/i.test(destinations))
    return `EVENT_DESTINATIONS=${destinations}`;
  return undefined;
}

/**
 * Creates the local bus on the backend at `endpoint` (kept when it exists) and checks it; returns its
 * name. Throws {@link LocalEventBridgeError} naming the fix when the backend does not answer.
 *
 * @example
 * ```ts
 * await ensureLocalEventBus('http://127.0.0.1:5000', 'us-east-1'); // 'pds-bridge-local-events'
 * ```
 */
export async function ensureLocalEventBus(
  endpoint: string,
  region: string,
  busName: string = LOCAL_EVENT_BUS,
): Promise<string> {
  const client = new EventBridgeClient({
    endpoint,
    region,
    credentials: { ...LOCAL_AWS_CREDENTIALS },
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 2000, requestTimeout: 5000 },
  });
  try {
    try {
      await client.send(new CreateEventBusCommand({ Name: busName }));
    } catch (error) {
      if ((error as { name?: string }).name !== 'ResourceAlreadyExistsException') throw error;
    }
    await client.send(new DescribeEventBusCommand({ Name: busName }));
    return busName;
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new LocalEventBridgeError(
      `No EventBridge backend answered at ${endpoint} (${reason}); ${LOCAL_EVENTBRIDGE_FIX}, or leave EventBridge output off`,
      { cause: error },
    );
  } finally {
    client.destroy();
  }
}
