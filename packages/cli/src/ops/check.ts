/**
 * `pds bridge check --stage S`: after a deploy, is the stage whole and working? One line per check, each
 * passed or failed and, when failed, what to do:
 *
 * - the CloudFormation stack `pds-bridge-<stage>` is complete and has the outputs the checks read
 *   (the other resources are found by the names the templates give them, as every `pds bridge` command
 *   finds them, so they are checked even when the stack is not);
 * - the HTTP API's `GET /health` answers, and its `GET /health/pds` proves that the api function reaches
 *   the PDS with its own role and credentials (the operator's request is signed for the API only: no PDS
 *   credential leaves the operator's machine);
 * - each queue exists, its dead-letter queue is empty, and its oldest message's age (CloudWatch);
 * - the stage's CloudWatch alarms (named `pds-bridge-<stage>-…` and notifying the stage's topic) are not
 *   in ALARM;
 * - the pollers' EventBridge Scheduler schedules exist and are enabled.
 *
 * A check that cannot be made (a call refused or timed out) fails with the reason. The checks run
 * concurrently; the lines keep this order.
 */
import type { AlarmFacts, DeploymentProbe, HttpAnswerFacts, StackFacts } from './deployment.ts';
import type { OperatorQueues } from './ports.ts';
import {
  FAILED_RUNS_ROLE,
  QUEUE_ROLES,
  queueName,
  SCHEDULE_DLQ_ROLE,
  SCHEDULE_NAMES,
  stackName,
  stageResourceName,
} from './target.ts';

/** One check's outcome. */
export interface CheckLine {
  /** What was checked: `stack`, `api`, `pds`, `queue ingest`, `alarms`, `alarm NAME`, `schedule NAME`. */
  readonly check: string;
  readonly ok: boolean;
  /** What was found. */
  readonly detail: string;
  /** When it failed: what to do. */
  readonly fix?: string;
}

export interface CheckReport {
  readonly stage: string;
  readonly region: string;
  /** True when every check passed. */
  readonly ok: boolean;
  readonly lines: CheckLine[];
}

/** The stack statuses of a deploy that finished well. */
const COMPLETE = new Set(['CREATE_COMPLETE', 'UPDATE_COMPLETE']);
/** The stack outputs the checks read. */
const REQUIRED_OUTPUTS = ['ApiUrl', 'StateBucketName'] as const;
/** Where a failed call's fix is written. */
const PERMISSIONS_HINT =
  'check the region and that your credentials may make the read-only calls docs/deployment.md lists ("Check it works")';

/**
 * Checks the deployed stage `stage`.
 *
 * @example
 * ```ts
 * const report = await checkDeployment(probe, queues, { stage: 'prod', region: 'eu-central-1' });
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export async function checkDeployment(
  probe: DeploymentProbe,
  queues: OperatorQueues,
  options: { stage: string; region: string },
): Promise<CheckReport> {
  const { stage, region } = options;
  const [stackPart, queueLines, alarmLines, scheduleLines] = await Promise.all([
    stackAndApiLines(probe, stage, region),
    queueLinesOf(probe, queues, stage),
    attempt('alarms', () => alarmLinesOf(probe, stage)),
    Promise.all(
      SCHEDULE_NAMES.map((name) => attempt(`schedule ${name}`, () => scheduleLine(probe, stage, name))),
    ),
  ]);
  const lines = [...stackPart, ...queueLines, ...alarmLines, ...scheduleLines.flat()];
  return { stage, region, ok: lines.every((line) => line.ok), lines };
}

/** Runs one check; a call that fails (refused, timed out) is that check's failure. */
async function attempt(check: string, run: () => Promise<CheckLine | CheckLine[]>): Promise<CheckLine[]> {
  try {
    const outcome = await run();
    return Array.isArray(outcome) ? outcome : [outcome];
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return [{ check, ok: false, detail: `could not check: ${reason}`, fix: PERMISSIONS_HINT }];
  }
}

const passed = (check: string, detail: string): CheckLine => ({ check, ok: true, detail });
const failed = (check: string, detail: string, fix: string): CheckLine => ({ check, ok: false, detail, fix });

async function stackAndApiLines(probe: DeploymentProbe, stage: string, region: string): Promise<CheckLine[]> {
  let stack: StackFacts | undefined;
  const stackLines = await attempt('stack', async () => {
    stack = await probe.stack(stackName(stage));
    return stackLine(stack, stage, region);
  });
  const apiUrl = stack?.outputs.ApiUrl?.replace(/\/+$/, '');
  if (apiUrl === undefined) {
    const fix = 'the API is found through the stack output ApiUrl: make the stack check pass first';
    return [
      ...stackLines,
      failed('api', 'not checked: no ApiUrl output', fix),
      failed('pds', 'not checked: no ApiUrl output', fix),
    ];
  }
  const apiLines = await Promise.all([
    attempt('api', async () => healthLine(await probe.get(`${apiUrl}/health`, { signed: false }), stage)),
    attempt('pds', async () => pdsLine(await probe.get(`${apiUrl}/health/pds`, { signed: true }), stage)),
  ]);
  return [...stackLines, ...apiLines.flat()];
}

function stackLine(stack: StackFacts | undefined, stage: string, region: string): CheckLine {
  const name = stackName(stage);
  if (!stack) {
    return failed(
      'stack',
      `there is no stack ${name} in ${region}`,
      `deploy it (npx osls deploy --stage ${stage} --region ${region}), or check --stage, AWS_REGION and the account of your credentials`,
    );
  }
  const reason = stack.statusReason ? ` (${stack.statusReason})` : '';
  if (stack.status.endsWith('_IN_PROGRESS')) {
    return failed('stack', `${name} is ${stack.status}${reason}`, 'wait until it ends, then check again');
  }
  if (!COMPLETE.has(stack.status)) {
    return failed(
      'stack',
      `${name} is ${stack.status}${reason}`,
      `its events say what failed (aws cloudformation describe-stack-events --stack-name ${name}); fix it and deploy again`,
    );
  }
  const missing = REQUIRED_OUTPUTS.filter((key) => stack?.outputs[key] === undefined);
  if (missing.length > 0) {
    return failed(
      'stack',
      `${name} is ${stack.status} but lacks the output(s) ${missing.join(', ')}`,
      'deploy this version of the bridge: its templates declare them',
    );
  }
  return passed('stack', `${name} is ${stack.status}; outputs ${REQUIRED_OUTPUTS.join(', ')} found`);
}

/** The `detail` of a problem answer, or API Gateway's `message`, else the first characters of the body. */
function answerText(answer: HttpAnswerFacts): string {
  try {
    const body = JSON.parse(answer.body) as { detail?: unknown; message?: unknown };
    const text = typeof body.detail === 'string' ? body.detail : body.message;
    if (typeof text === 'string') return text;
  } catch {
    // not JSON: the text itself
  }
  return answer.body.slice(0, 200);
}

const logsOf = (stage: string) => `the api function's logs (/aws/lambda/${stageResourceName(stage, 'api')})`;

function healthLine(answer: HttpAnswerFacts, stage: string): CheckLine {
  if (answer.status === 200) {
    const version = (JSON.parse(answer.body) as { version?: unknown }).version;
    return passed('api', `GET /health answered 200 (version ${String(version)})`);
  }
  return failed(
    'api',
    `GET /health answered ${answer.status}: ${answerText(answer)}`,
    `${logsOf(stage)} say why`,
  );
}

function pdsLine(answer: HttpAnswerFacts, stage: string): CheckLine {
  const said = `GET /health/pds answered ${answer.status}: ${answerText(answer)}`;
  switch (answer.status) {
    case 200: {
      const { pds } = JSON.parse(answer.body) as {
        pds: { latencyMs: number; communicationChannels: number };
      };
      return passed(
        'pds',
        `the api function reached the PDS with its own credentials in ${pds.latencyMs} ms (${pds.communicationChannels} communication channels)`,
      );
    }
    case 403:
      return failed(
        'pds',
        said,
        'API Gateway refused your signed request: allow your principal execute-api:Invoke on GET /health/pds of this API',
      );
    case 404:
      return failed(
        'pds',
        said,
        'the deployed API predates GET /health/pds: deploy this version of the bridge',
      );
    case 502:
      return failed(
        'pds',
        said,
        `the PDS refused the bridge's credentials: put the right ones in the secret pds-bridge/${stage}/pds-credentials (docs/deployment.md)`,
      );
    case 503:
      return failed(
        'pds',
        said,
        'the PDS did not answer the api function: check the pdsBaseUrl parameter and that the PDS is up and reachable from Lambda, then check again',
      );
    default:
      return failed(
        'pds',
        said,
        `${logsOf(stage)} say why (for instance its role cannot read the PDS secret)`,
      );
  }
}

/** Seconds as people read them: `42 s`, `7 min`, `3 h`. */
function age(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}

async function queueLinesOf(
  probe: DeploymentProbe,
  queues: OperatorQueues,
  stage: string,
): Promise<CheckLine[]> {
  let ages = new Map<string, number>();
  const ageLines = await attempt('queue ages', async () => {
    ages = await probe.oldestMessageAges(QUEUE_ROLES.map((role) => queueName(stage, role)));
    return [];
  });
  const roleLines = await Promise.all([
    ...QUEUE_ROLES.map((role) => attempt(`queue ${role}`, () => queueLine(queues, stage, role, ages))),
    ...[SCHEDULE_DLQ_ROLE, FAILED_RUNS_ROLE].map((role) =>
      attempt(`queue ${role}`, () => deadLetterOnlyLine(queues, stage, role)),
    ),
  ]);
  return [...roleLines.flat(), ...ageLines];
}

const redriveFix = (role: string, stage: string, name: string) =>
  `pds bridge redrive ${role} --stage ${stage} shows why they are in ${name}; once the cause is fixed, add --apply to send them back`;

const missingQueue = (check: string, names: string[], stage: string) =>
  failed(
    check,
    `there is no queue ${names.join(' nor ')}`,
    `deploy the stage again (npx osls deploy --stage ${stage}); check --stage, AWS_REGION and the account`,
  );

async function queueLine(
  queues: OperatorQueues,
  stage: string,
  role: string,
  ages: ReadonlyMap<string, number>,
): Promise<CheckLine> {
  const check = `queue ${role}`;
  const [source, deadLetter] = await Promise.all([
    queues.depth(queueName(stage, role)),
    queues.depth(queueName(stage, role, { deadLetter: true })),
  ]);
  if (!source || !deadLetter) {
    const names = [
      ...(source ? [] : [queueName(stage, role)]),
      ...(deadLetter ? [] : [queueName(stage, role, { deadLetter: true })]),
    ];
    return missingQueue(check, names, stage);
  }
  const oldest = ages.get(source.name);
  const waiting = `${source.visible} waiting, ${source.inFlight} in flight, oldest ${oldest === undefined ? 'unknown (no recent metric)' : age(oldest)}`;
  const stuck = deadLetter.visible + deadLetter.inFlight + deadLetter.delayed;
  if (stuck > 0) {
    return failed(
      check,
      `${waiting}; ${stuck} message(s) in its dead-letter queue ${deadLetter.name}`,
      redriveFix(role, stage, deadLetter.name),
    );
  }
  return passed(check, `${waiting}; dead-letter queue empty`);
}

/** The schedule's dead-letter queue and the pollers' failed runs: queues that should stay empty. */
async function deadLetterOnlyLine(queues: OperatorQueues, stage: string, role: string): Promise<CheckLine> {
  const check = `queue ${role}`;
  const name =
    role === FAILED_RUNS_ROLE ? queueName(stage, role) : queueName(stage, role, { deadLetter: true });
  const depth = await queues.depth(name);
  if (!depth) return missingQueue(check, [name], stage);
  const stuck = depth.visible + depth.inFlight + depth.delayed;
  if (stuck > 0) return failed(check, `${stuck} message(s) in ${name}`, redriveFix(role, stage, name));
  return passed(check, `${name} is empty`);
}

/** The stage's alarms: named after it and notifying its topic (a stage `prod-eu` shares `prod`'s prefix). */
function ownAlarms(alarms: readonly AlarmFacts[], stage: string): AlarmFacts[] {
  const topic = `:${stageResourceName(stage, 'alarms')}`;
  return alarms.filter((alarm) => alarm.actions.some((arn) => arn.endsWith(topic)));
}

async function alarmLinesOf(probe: DeploymentProbe, stage: string): Promise<CheckLine[]> {
  const prefix = stageResourceName(stage, '');
  const alarms = ownAlarms(await probe.alarms(prefix), stage);
  if (alarms.length === 0) {
    return [
      failed(
        'alarms',
        `no alarm named ${prefix}… notifies the topic ${stageResourceName(stage, 'alarms')}`,
        `deploy the stage again (deploy/monitoring.yml creates them); check --stage and AWS_REGION`,
      ),
    ];
  }
  const firing = alarms.filter((alarm) => alarm.state === 'ALARM');
  const waiting = alarms.filter((alarm) => alarm.state === 'INSUFFICIENT_DATA').length;
  const counts = `${alarms.length} alarms: ${alarms.length - firing.length - waiting} OK, ${waiting} INSUFFICIENT_DATA (a new alarm until its first period ends), ${firing.length} ALARM`;
  return [
    firing.length === 0
      ? passed('alarms', counts)
      : failed(
          'alarms',
          counts,
          'see the lines below; docs/deployment.md, "Alarms", says what each means and what to do',
        ),
    ...firing.map((alarm) =>
      failed(
        `alarm ${alarm.name}`,
        `in ALARM${alarm.reason ? `: ${alarm.reason}` : ''}`,
        'docs/deployment.md, "Alarms", says what it means and what to do',
      ),
    ),
  ];
}

async function scheduleLine(probe: DeploymentProbe, stage: string, name: string): Promise<CheckLine> {
  const check = `schedule ${name}`;
  const full = stageResourceName(stage, name);
  const state = await probe.scheduleState(full);
  if (state === undefined) {
    return failed(
      check,
      `there is no schedule ${full}`,
      `deploy the stage again (npx osls deploy --stage ${stage})`,
    );
  }
  if (state !== 'ENABLED') {
    return failed(
      check,
      `${full} is ${state}: its poller does not run`,
      'enable it in the EventBridge Scheduler console (or aws scheduler update-schedule with its settings and --state ENABLED), or deploy the stage again: the template enables it',
    );
  }
  return passed(check, `${full} is ENABLED`);
}
