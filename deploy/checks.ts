/**
 * Deploy safety: what `osls package` (and so `osls deploy`) refuses before CloudFormation sees the
 * template, each with a message naming the fix. serverless.yml loads it as a local osls plugin
 * (deploy/checks-plugin.mjs); the rules are plain functions so that tests call them directly.
 *
 * - `pdsBaseUrl` is required, and must be an http(s) URL, for every stage but the ones in
 *   {@link PLACEHOLDER_STAGES}: without it a stack would call a placeholder host. Outside those
 *   stages it must be `https:`: the functions send the PDS credentials with every request, and over
 *   `http:` they would cross the network in clear text.
 * - The stage ends the bucket names (`pds-bridge-state-<account>-<region>-<stage>`): a stage that
 *   would make one invalid (capitals, too long, …) is refused here instead of failing mid-deploy.
 * - `reserveConcurrency` is `true` or `false`; anything else would silently mean `false`.
 * - A poller schedule must be `rate(N minutes|hours)` between 1 minute and 8 hours: its "poller
 *   stopped" alarm watches three intervals, and CloudWatch evaluates at most one day.
 * - `eventBus` is `none`, `create` or an EventBridge bus name; `eventDestinations` is read as
 *   EVENT_DESTINATIONS is, and may send a family to EventBridge only with a bus (deploy/eventbridge.yml).
 * - Every `--param` name must be one the templates read (`${param:<name>…}` in serverless.yml and
 *   deploy/*.yml): osls itself ignores an unknown one, so `--param alarmMail=…` would package and the
 *   alarms would then go to nobody.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseEventDestinations } from '../packages/bridge/src/config/event-destinations.ts';
import { closestName } from '../packages/bridge/src/core/suggest.ts';

/** Stages that may package without `pdsBaseUrl`; serverless.yml (`params`) gives them a placeholder. */
export const PLACEHOLDER_STAGES: readonly string[] = ['dev', 'local'];

/** What the checks read, as osls resolved it. */
export interface DeploymentChoices {
  stage: string;
  region: string;
  /** `--param pdsBaseUrl`, or the placeholder serverless.yml gives the stages that may go without. */
  pdsBaseUrl: string;
  reserveConcurrency: string;
  /** `--param eventBus`: `none` (default), `create` or an existing bus name. */
  eventBus?: string;
  /** `--param eventDestinations` (EVENT_DESTINATIONS); default `sqs`. */
  eventDestinations?: string;
  /** The pollers' schedule expressions, by poller. */
  schedules: Readonly<Record<string, string>>;
}

/** `pds-bridge-state-` and `pds-bridge-drop-`: the longer one bounds the stage. */
const BUCKET_PREFIX = 'pds-bridge-state-';
/** An account id is 12 digits. */
const ACCOUNT_ID_LENGTH = 12;
/** S3's longest bucket name. */
const BUCKET_NAME_MAX = 63;
/** Endings S3 reserves for its own access points and directory buckets. */
const RESERVED_BUCKET_SUFFIXES = ['-s3alias', '--ol-s3', '--x-s3', '--table-s3'];

/**
 * Every reason the choices cannot be deployed, one sentence each; empty when they can.
 *
 * @example
 * ```ts
 * deploymentProblems({ stage: 'Prod', region: 'eu-central-1', pdsBaseUrl: '', reserveConcurrency: 'false', schedules: {} });
 * // ['pdsBaseUrl is required for stage "Prod": …', 'Stage "Prod" would make the bucket name …']
 * ```
 */
export function deploymentProblems(choices: DeploymentChoices): string[] {
  const problems: string[] = [];
  const { stage, region } = choices;

  const url = choices.pdsBaseUrl.trim();
  if (url === '') {
    problems.push(
      `pdsBaseUrl is required for stage "${stage}": add --param pdsBaseUrl=https://<your PDS> ` +
        `(only the stages ${PLACEHOLDER_STAGES.join(' and ')} package without it, with a placeholder host).`,
    );
  } else if (!isHttpUrl(url)) {
    problems.push(
      `pdsBaseUrl "${url}" is not an http(s) URL: give the PDS's address, e.g. https://pds.acme.example.`,
    );
  } else if (new URL(url).protocol === 'http:' && !PLACEHOLDER_STAGES.includes(stage)) {
    problems.push(
      `pdsBaseUrl "${url}" is plain http for stage "${stage}": the PDS credentials would cross the network in clear text. Give its https:// address (only the stages ${PLACEHOLDER_STAGES.join(' and ')} may use http).`,
    );
  }

  const bucket = `${BUCKET_PREFIX}${'1'.repeat(ACCOUNT_ID_LENGTH)}-${region}-${stage}`;
  const longest = BUCKET_NAME_MAX - (bucket.length - stage.length);
  const endsReserved = RESERVED_BUCKET_SUFFIXES.find((suffix) => stage.endsWith(suffix));
  if (!/^[a-z0-9-]*[a-z0-9]$/.test(stage) || stage.length > longest || endsReserved) {
    problems.push(
      `Stage "${stage}" would make the bucket name "${BUCKET_PREFIX}<account>-${region}-${stage}" invalid: ` +
        `use lowercase letters, digits and hyphens, end with a letter or digit, at most ${longest} characters ` +
        `in ${region}${endsReserved ? `, not ending in "${endsReserved}"` : ''}.`,
    );
  }

  if (choices.reserveConcurrency !== 'true' && choices.reserveConcurrency !== 'false') {
    problems.push(
      `reserveConcurrency must be true or false, not "${choices.reserveConcurrency}" (docs/deployment.md, "Concurrency").`,
    );
  }

  for (const [poller, expression] of Object.entries(choices.schedules)) {
    const interval = scheduleIntervalSeconds(expression);
    if (typeof interval === 'string') problems.push(`The ${poller} schedule ${interval}`);
  }
  problems.push(...eventBusProblems(choices.eventBus ?? 'none', choices.eventDestinations ?? 'sqs'));
  return problems;
}

/** An EventBridge bus name as CreateEventBus accepts it (the default bus is `default`). */
const BUS_NAME = /^[\w.\-/]{1,256}$/;

function eventBusProblems(eventBus: string, eventDestinations: string): string[] {
  const problems: string[] = [];
  const bus = eventBus.trim();
  if (!BUS_NAME.test(bus)) {
    problems.push(
      `eventBus "${bus}" is not none, create or an EventBridge bus name (letters, digits, . - _ /): docs/deployment.md, "EventBridge".`,
    );
  }
  const destinations = parseEventDestinations(eventDestinations);
  if (!destinations.ok) {
    problems.push(`eventDestinations ${destinations.problem}.`);
  } else {
    const { default: fallback, families } = destinations.value;
    const toBus = fallback !== 'sqs' || Object.values(families).some((each) => each !== 'sqs');
    if (toBus && bus === 'none') {
      problems.push(
        `eventDestinations "${eventDestinations}" sends events to EventBridge but eventBus is none: add --param eventBus=create (a new bus with an archive) or --param eventBus=<existing bus name>.`,
      );
    }
  }
  return problems;
}

const UNIT_SECONDS: Record<string, number> = { minute: 60, minutes: 60, hour: 3600, hours: 3600 };
/** CloudWatch evaluates at most one day; the alarm watches three intervals. */
const LONGEST_INTERVAL_SECONDS = 86_400 / 3;

/**
 * Seconds between two runs of a `rate(...)` schedule, or why the expression cannot be used (a
 * sentence completing "The <poller> schedule …").
 *
 * @example
 * ```ts
 * scheduleIntervalSeconds('rate(5 minutes)'); // 300
 * ```
 */
export function scheduleIntervalSeconds(expression: string): number | string {
  const rate = /^rate\((\d+) (minutes?|hours?|days?)\)$/.exec(expression.trim());
  const seconds = rate ? Number(rate[1]) * (UNIT_SECONDS[rate[2] as string] ?? Number.NaN) : Number.NaN;
  if (!(seconds >= 60 && seconds <= LONGEST_INTERVAL_SECONDS)) {
    return (
      `"${expression}" is not a rate between 1 minute and 8 hours: use rate(N minutes) or rate(N hours). ` +
      'Its "poller stopped" alarm fires after three intervals without a successful run, and CloudWatch ' +
      'evaluates at most one day.'
    );
  }
  return seconds;
}

/**
 * The parameter names the templates read: every `${param:<name>` in serverless.yml and deploy/*.yml,
 * sorted. Read from the files, so a parameter a template gains is known without a list to keep.
 *
 * @example
 * ```ts
 * knownParamNames(process.cwd()); // ['alarmEmail', 'apiErrorsAlarmCount', …, 'pdsBaseUrl', …]
 * ```
 */
export function knownParamNames(serviceDir: string): string[] {
  const deployDir = path.join(serviceDir, 'deploy');
  const files = [
    path.join(serviceDir, 'serverless.yml'),
    ...readdirSync(deployDir)
      .filter((file) => file.endsWith('.yml') || file.endsWith('.yaml'))
      .map((file) => path.join(deployDir, file)),
  ];
  const names = new Set<string>();
  for (const file of files) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(/\$\{param:([A-Za-z0-9_-]+)/g))
      names.add(name as string);
  }
  return [...names].sort();
}

/**
 * One problem per `--param` whose name no template reads, naming the closest known name when one is
 * near, and listing every known name.
 *
 * @example
 * ```ts
 * unknownParamProblems(['alarmMail=ops@acme.example'], ['alarmEmail', 'pdsBaseUrl']);
 * // ['Unknown --param "alarmMail": did you mean alarmEmail? Known parameters: alarmEmail, pdsBaseUrl.']
 * ```
 */
export function unknownParamProblems(given: readonly string[], known: readonly string[]): string[] {
  const problems: string[] = [];
  for (const item of given) {
    const name = item.includes('=') ? item.slice(0, item.indexOf('=')) : item;
    if (known.includes(name)) continue;
    const closest = closestName(name, known);
    problems.push(
      `Unknown --param "${name}"${closest ? `: did you mean ${closest}?` : '.'} ` +
        `Known parameters: ${known.join(', ')} (docs/deployment.md, "Parameters").`,
    );
  }
  return problems;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The few parts of the osls instance the plugin touches. */
interface Osls {
  serviceDir?: string;
  processedInput?: { options?: { param?: string | string[] } };
  service: {
    provider: { stage: string; region: string };
    custom?: {
      deployChecks?: Partial<Omit<DeploymentChoices, 'stage' | 'region'>>;
    };
  };
  classes: { Error: new (message: string, code?: string) => Error };
}

interface VariableSourceMeta {
  address: string | null;
  resolveVariable: (variable: string) => Promise<unknown>;
}

/**
 * The osls plugin: refuses packaging when {@link deploymentProblems} finds any, and resolves
 * `${pollerIntervalSeconds:<poller>}` (the seconds between two runs of `custom.deployChecks.schedules.<poller>`)
 * for the "poller stopped" alarms.
 */
export class DeployChecks {
  readonly hooks: Record<string, () => void>;
  readonly configurationVariablesSources: Record<
    string,
    { resolve: (meta: VariableSourceMeta) => Promise<{ value: number }> }
  >;

  constructor(serverless: Osls) {
    const fail = (message: string) => new serverless.classes.Error(message, 'PDS_BRIDGE_DEPLOY_CHECK');
    this.hooks = {
      'before:package:initialize': () => {
        const { provider, custom } = serverless.service;
        const given = custom?.deployChecks ?? {};
        const problems = deploymentProblems({
          stage: provider.stage,
          region: provider.region,
          pdsBaseUrl: String(given.pdsBaseUrl ?? ''),
          reserveConcurrency: String(given.reserveConcurrency ?? ''),
          eventBus: String(given.eventBus ?? 'none'),
          eventDestinations: String(given.eventDestinations ?? 'sqs'),
          schedules: given.schedules ?? {},
        });
        const params = serverless.processedInput?.options?.param;
        const serviceDir = serverless.serviceDir ?? path.resolve(import.meta.dirname, '..');
        problems.push(
          ...unknownParamProblems(
            params === undefined ? [] : Array.isArray(params) ? params : [params],
            knownParamNames(serviceDir),
          ),
        );
        if (problems.length > 0) {
          throw fail(`pds-bridge cannot be packaged:\n- ${problems.join('\n- ')}`);
        }
      },
    };
    this.configurationVariablesSources = {
      pollerIntervalSeconds: {
        resolve: async ({ address, resolveVariable }) => {
          const expression = String(await resolveVariable(`self:custom.deployChecks.schedules.${address}`));
          const interval = scheduleIntervalSeconds(expression);
          // An unusable expression is refused by the hook above, together with every other problem.
          return { value: typeof interval === 'number' ? interval : 60 };
        },
      },
    };
  }
}
