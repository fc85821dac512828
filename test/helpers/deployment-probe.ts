/**
 * One fake of `pds bridge check`'s ports (packages/cli/src/ops/deployment.ts and the queue depths of
 * packages/cli/src/ops/ports.ts): a whole, healthy stage unless a test changes a part of it.
 *
 * @example
 * ```ts
 * const stage = new FakeStage('prod');
 * stage.stackFacts = { status: 'UPDATE_ROLLBACK_COMPLETE', outputs: {} };
 * const report = await checkDeployment(stage, stage, { stage: 'prod', region: 'eu-central-1' });
 * ```
 */
import type {
  AlarmFacts,
  DeploymentProbe,
  HttpAnswerFacts,
  StackFacts,
} from '../../packages/cli/src/ops/deployment.ts';
import type { OperatorQueues, QueueDepth } from '../../packages/cli/src/ops/ports.ts';
import { FAILED_RUNS_ROLE, QUEUE_ROLES, SCHEDULE_NAMES } from '../../packages/cli/src/ops/target.ts';

const API_URL = 'https://api.example.com';

export class FakeStage implements DeploymentProbe, OperatorQueues {
  stackFacts: StackFacts | undefined;
  alarmList: AlarmFacts[];
  schedules = new Map<string, string>();
  queues = new Map<string, number>();
  ages = new Map<string, number>();
  /** Answers by URL; a function may throw (a timeout). */
  answers = new Map<string, HttpAnswerFacts | (() => HttpAnswerFacts)>();
  /** Calls that fail, by method name. */
  failing = new Map<keyof DeploymentProbe, Error>();

  readonly stage: string;

  constructor(stage: string) {
    this.stage = stage;
    const topic = `arn:aws:sns:eu-central-1:123456789012:pds-bridge-${stage}-alarms`;
    this.stackFacts = {
      status: 'CREATE_COMPLETE',
      outputs: { ApiUrl: API_URL, StateBucketName: `pds-bridge-state-123456789012-eu-central-1-${stage}` },
    };
    this.alarmList = [
      { name: `pds-bridge-${stage}-ingest-errors`, state: 'OK', actions: [topic] },
      { name: `pds-bridge-${stage}-api-5xx`, state: 'OK', actions: [topic] },
    ];
    for (const name of SCHEDULE_NAMES) this.schedules.set(`pds-bridge-${stage}-${name}`, 'ENABLED');
    for (const role of QUEUE_ROLES) {
      this.queues.set(`pds-bridge-${stage}-${role}`, 0);
      this.queues.set(`pds-bridge-${stage}-${role}-dlq`, 0);
    }
    this.queues.set(`pds-bridge-${stage}-poller-schedule-dlq`, 0);
    this.queues.set(`pds-bridge-${stage}-${FAILED_RUNS_ROLE}`, 0);
    this.answers.set(`${API_URL}/health`, { status: 200, body: '{"status":"ok","version":"1.0.0"}' });
    this.answers.set(`${API_URL}/health/pds`, {
      status: 200,
      body: '{"status":"ok","pds":{"latencyMs":12,"communicationChannels":3}}',
    });
  }

  #fail(method: keyof DeploymentProbe): void {
    const error = this.failing.get(method);
    if (error) throw error;
  }

  async stack(): Promise<StackFacts | undefined> {
    this.#fail('stack');
    return this.stackFacts;
  }

  async alarms(prefix: string): Promise<AlarmFacts[]> {
    this.#fail('alarms');
    return this.alarmList.filter((alarm) => alarm.name.startsWith(prefix));
  }

  async scheduleState(name: string): Promise<string | undefined> {
    this.#fail('scheduleState');
    return this.schedules.get(name);
  }

  async oldestMessageAges(names: readonly string[]): Promise<Map<string, number>> {
    this.#fail('oldestMessageAges');
    return new Map([...this.ages].filter(([name]) => names.includes(name)));
  }

  async get(url: string): Promise<HttpAnswerFacts> {
    this.#fail('get');
    const answer = this.answers.get(url);
    if (answer === undefined) return { status: 404, body: '{"message":"Not Found"}' };
    return typeof answer === 'function' ? answer() : answer;
  }

  async depth(name: string): Promise<QueueDepth | undefined> {
    const visible = this.queues.get(name);
    return visible === undefined
      ? undefined
      : { name, url: `https://sqs/${name}`, visible, inFlight: 0, delayed: 0 };
  }

  peek(): never {
    throw new Error('pds bridge check never looks at messages');
  }

  move(): never {
    throw new Error('pds bridge check never moves messages');
  }
}
