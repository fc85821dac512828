/**
 * What `pds bridge check` concludes from what it finds (packages/cli/src/ops/check.ts), over the one
 * fake stage of test/helpers/deployment-probe.ts: the failures moto cannot stage (a stack in progress or
 * rolled back, API Gateway's 403, the PDS down, a call refused or timed out) each give their ✗ and fix.
 */
import { describe, expect, it } from 'vitest';
import { checkDeployment } from '../../packages/cli/src/ops/check.ts';
import { FakeStage } from '../helpers/deployment-probe.ts';

const run = (stage: FakeStage) =>
  checkDeployment(stage, stage, { stage: stage.stage, region: 'eu-central-1' });
const lineOf = async (stage: FakeStage, check: string) =>
  (await run(stage)).lines.find((line) => line.check === check);

describe('pds bridge check', () => {
  it('passes a whole stage, every line ✓', async () => {
    const report = await run(new FakeStage('prod'));

    expect(report.lines.filter((line) => !line.ok)).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it.each([
    ['UPDATE_IN_PROGRESS', /wait until it ends/],
    ['UPDATE_ROLLBACK_COMPLETE', /describe-stack-events --stack-name pds-bridge-prod/],
    ['ROLLBACK_COMPLETE', /fix it and deploy again/],
  ])('fails on a stack %s, saying what to do', async (status, fix) => {
    const stage = new FakeStage('prod');
    stage.stackFacts = {
      status,
      statusReason: 'Resource update cancelled',
      outputs: stage.stackFacts?.outputs ?? {},
    };

    const line = await lineOf(stage, 'stack');

    expect(line).toMatchObject({
      ok: false,
      detail: `pds-bridge-prod is ${status} (Resource update cancelled)`,
      fix: expect.stringMatching(fix),
    });
  });

  it('without a stack, fails the stack and cannot reach the API, but still checks the queues by name', async () => {
    const stage = new FakeStage('prod');
    stage.stackFacts = undefined;

    const report = await run(stage);

    const failed = report.lines.filter((line) => !line.ok).map((line) => `${line.check}: ${line.detail}`);
    expect(failed).toEqual([
      'stack: there is no stack pds-bridge-prod in eu-central-1',
      'api: not checked: no ApiUrl output',
      'pds: not checked: no ApiUrl output',
    ]);
    expect(report.ok).toBe(false);
  });

  it('fails on a stack that lacks an output it reads', async () => {
    const stage = new FakeStage('prod');
    stage.stackFacts = { status: 'UPDATE_COMPLETE', outputs: { ApiUrl: 'https://api.example.com' } };

    expect(await lineOf(stage, 'stack')).toMatchObject({
      ok: false,
      detail: 'pds-bridge-prod is UPDATE_COMPLETE but lacks the output(s) StateBucketName',
    });
  });

  it.each([
    [403, '{"message":"Forbidden"}', /allow your principal execute-api:Invoke on GET \/health\/pds/],
    [404, '{"message":"Not Found"}', /deploy this version of the bridge/],
    [
      503,
      '{"type":"pds-unavailable","detail":"The PDS is unavailable; try again later"}',
      /check the pdsBaseUrl parameter/,
    ],
    [
      500,
      '{"type":"internal-error","detail":"Internal error"}',
      /\/aws\/lambda\/pds-bridge-prod-api\) say why/,
    ],
  ])('fails the PDS check on a %i, naming the fix', async (status, body, fix) => {
    const stage = new FakeStage('prod');
    stage.answers.set('https://api.example.com/health/pds', { status, body });

    const line = await lineOf(stage, 'pds');

    expect(line).toMatchObject({ ok: false, fix: expect.stringMatching(fix) });
    expect(line?.detail).toMatch(new RegExp(`^GET /health/pds answered ${status}: `));
  });

  it('counts a new alarm (INSUFFICIENT_DATA) as passing and ignores an alarm of another stage', async () => {
    const stage = new FakeStage('prod');
    stage.alarmList.push(
      {
        name: 'pds-bridge-prod-ingest-failed',
        state: 'INSUFFICIENT_DATA',
        actions: ['arn:aws:sns:eu-central-1:1:pds-bridge-prod-alarms'],
      },
      {
        name: 'pds-bridge-prod-eu-api-5xx',
        state: 'ALARM',
        actions: ['arn:aws:sns:eu-central-1:1:pds-bridge-prod-eu-alarms'],
      },
    );

    const report = await run(stage);

    expect(report.lines.find((line) => line.check === 'alarms')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^3 alarms: 2 OK, 1 INSUFFICIENT_DATA/),
    });
    expect(report.ok).toBe(true);
  });

  it('fails without any alarm of the stage', async () => {
    const stage = new FakeStage('prod');
    stage.alarmList = [];

    expect(await lineOf(stage, 'alarms')).toMatchObject({
      ok: false,
      fix: expect.stringMatching(/deploy\/monitoring.yml/),
    });
  });

  it('turns a call that is refused or times out into that check’s ✗, the other checks going on', async () => {
    const stage = new FakeStage('prod');
    const refused = new Error('User is not authorized to perform: scheduler:GetSchedule');
    refused.name = 'AccessDeniedException';
    stage.failing.set('scheduleState', refused);
    stage.answers.set('https://api.example.com/health', () => {
      const timeout = new Error('The operation was aborted due to timeout');
      timeout.name = 'TimeoutError';
      throw timeout;
    });

    const report = await run(stage);

    const failed = report.lines.filter((line) => !line.ok);
    expect(failed.map((line) => `${line.check}: ${line.detail}`)).toEqual([
      'api: could not check: TimeoutError: The operation was aborted due to timeout',
      'schedule poll-messaging-assets: could not check: AccessDeniedException: User is not authorized to perform: scheduler:GetSchedule',
      'schedule audit-messaging-assets: could not check: AccessDeniedException: User is not authorized to perform: scheduler:GetSchedule',
      'schedule poll-supplier-reviews: could not check: AccessDeniedException: User is not authorized to perform: scheduler:GetSchedule',
    ]);
    expect(failed[1]?.fix).toMatch(/docs\/deployment.md lists \("Check it works"\)/);
    expect(report.lines.find((line) => line.check === 'pds')?.ok).toBe(true);
  });

  it('shows the oldest message age and fails when the age metric cannot be read', async () => {
    const stage = new FakeStage('prod');
    stage.ages.set('pds-bridge-prod-ingest', 5400);
    expect((await lineOf(stage, 'queue ingest'))?.detail).toBe(
      '0 waiting, 0 in flight, oldest 90 min; dead-letter queue empty',
    );

    stage.failing.set('oldestMessageAges', new Error('not authorized to perform: cloudwatch:GetMetricData'));
    const report = await run(stage);
    expect(report.lines.find((line) => line.check === 'queue ages')).toMatchObject({ ok: false });
    expect(report.lines.find((line) => line.check === 'queue ingest')?.detail).toMatch(/oldest unknown/);
  });
});
