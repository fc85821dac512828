/**
 * What `npm start` prints once the stack is up: what runs where, and how to use it (drop files, call
 * the API with its token, read events).
 */
import { DEMO_CHANNEL_IDS, DEMO_PRIMARY_KEYS } from '@pds-bridge/simulator';
import { dropRuleLine } from './ingest-hints.ts';
import { EVENT_QUEUE_ROLES } from './resources.ts';
import type { RunningLocalStack } from './stack.ts';

export interface BannerOptions {
  /** Where the connection facts were written, if anywhere. */
  stackFile?: string;
  /** Shorter text for `--demo`: what runs, not how to use it. */
  demo?: boolean;
  /** The operators' console (packages/cli/src/console), with its token, when it runs beside the stack. */
  consoleUrl?: string;
}

/**
 * The banner's lines.
 *
 * @example
 * ```ts
 * for (const line of bannerLines(stack, { stackFile: '.local/stack.json' })) show(line);
 * ```
 */
export function bannerLines(stack: RunningLocalStack, options: BannerOptions = {}): string[] {
  const { aws, api, pds } = stack;
  const credentials = `AWS_ACCESS_KEY_ID=${aws.accessKeyId} AWS_SECRET_ACCESS_KEY=${aws.secretAccessKey} AWS_REGION=${aws.region} AWS_DEFAULT_REGION=${aws.region}`;
  const pdsLine = pds.simulated
    ? `  PDS simulator   ${pds.url}   user ${pds.username}, password ${pds.password} (demo data)`
    : `  PDS             ${pds.url}   user ${pds.username} (from PDS_BASE_URL, PDS_USERNAME, PDS_PASSWORD)`;
  const lines = [
    `pds-bridge local stack is running${options.demo ? '' : ' (Ctrl-C stops it)'}`,
    '',
    pdsLine,
    `  S3 + SQS        ${aws.endpoint}   region ${aws.region}, any credentials; state ${stack.dataDir ? `kept in ${stack.dataDir}` : 'in memory (--data-dir keeps it)'}`,
    `  HTTP API        ${api.url}   Authorization: Bearer ${api.token}`,
    `  Pollers         messaging assets every ${seconds(stack.rates.messagingAssetsMs)}, supplier reviews every ${seconds(stack.rates.supplierReviewsMs)}`,
    `  Buckets         drop ${stack.buckets.drop}, state ${stack.buckets.state}`,
    `  Webhooks        signed POSTs to the endpoints you register (npx pds bridge webhooks create URL), from ${stack.queues.webhooks.name}`,
    stack.eventBridgeEndpoint
      ? `  EventBridge     ${stack.eventBridgeEndpoint}: every event also goes to the stack's bus there`
      : '  EventBridge     none (--eventbridge http://127.0.0.1:5000 with moto_server adds a bus)',
    ...(options.consoleUrl
      ? [`  Console         ${options.consoleUrl}   open it in a browser on this machine`]
      : []),
  ];
  if (options.demo) return [...lines, ''];
  const key = pds.simulated ? DEMO_PRIMARY_KEYS.water : '<primary key>';
  const channel = pds.simulated ? DEMO_CHANNEL_IDS.germany : '<channel id>';
  const publication = JSON.stringify({
    primaryKeys: [key],
    destinations: [{ destinationType: 'COMMUNICATION_CHANNEL', destinationId: channel }],
  });
  const eventQueues = EVENT_QUEUE_ROLES.map((role) => stack.queues[role].name).join(', ');
  return [
    ...lines,
    '',
    dropRuleLine(stack.ingest, pds.simulated),
    `  npm run drop -- ${stack.ingest.prefix ? `--prefix ${stack.ingest.prefix} ` : ''}items.csv more-items.zip`,
    `  aws s3 cp items.csv s3://${stack.buckets.drop}/${stack.ingest.prefix} --endpoint-url ${aws.endpoint}`,
    `    (the AWS CLI wants credentials; any will do: ${credentials})`,
    '',
    'Call the API (docs/api.md):',
    `  curl -H 'Authorization: Bearer ${api.token}' ${api.url}/communication-channels`,
    `  curl -H 'Authorization: Bearer ${api.token}' -H 'Content-Type: application/json' \\`,
    `       -d '${publication}' ${api.url}/publications`,
    '',
    'Read events as they arrive (docs/events.md):',
    '  npm run events                (consumes them; --peek leaves them on the queues)',
    "  npm run -s events | jq .      (JSON lines when piped; -s keeps npm's own lines out)",
    `  queues: ${eventQueues}`,
    '',
    ...(options.stackFile ? [`Connection facts for npm run drop / events: ${options.stackFile}`, ''] : []),
  ];
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
