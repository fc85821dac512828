import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type DeploymentChoices,
  deploymentProblems,
  knownParamNames,
  scheduleIntervalSeconds,
  unknownParamProblems,
} from '../../deploy/checks.ts';

const root = path.resolve(import.meta.dirname, '../..');

const fine: DeploymentChoices = {
  stage: 'prod',
  region: 'eu-central-1',
  pdsBaseUrl: 'https://pds.acme.example',
  reserveConcurrency: 'false',
  schedules: { messagingAssets: 'rate(5 minutes)', supplierReviews: 'rate(1 hour)' },
};

describe('deploymentProblems', () => {
  it('accepts a complete production choice', () => {
    expect(deploymentProblems(fine)).toEqual([]);
  });

  it('refuses eventDestinations that send to EventBridge without a bus, and unknown words, naming the fix', () => {
    // act
    const noBus = deploymentProblems({
      ...fine,
      eventBus: 'none',
      eventDestinations: 'sqs,publication=both',
    });
    const badWord = deploymentProblems({ ...fine, eventBus: 'create', eventDestinations: 'bus' });
    const badBus = deploymentProblems({ ...fine, eventBus: 'my bus', eventDestinations: 'sqs' });
    const created = deploymentProblems({ ...fine, eventBus: 'create', eventDestinations: 'both' });
    const existing = deploymentProblems({
      ...fine,
      eventBus: 'acme-events',
      eventDestinations: 'eventbridge',
    });

    // assess
    expect(noBus).toEqual([expect.stringContaining('--param eventBus=create')]);
    expect(badWord).toEqual([
      expect.stringContaining('eventDestinations has "bus": must be sqs, eventbridge, both'),
    ]);
    expect(badBus).toEqual([
      expect.stringContaining('eventBus "my bus" is not none, create or an EventBridge bus name'),
    ]);
    expect(created).toEqual([]);
    expect(existing).toEqual([]);
  });

  it('requires pdsBaseUrl, and an http(s) one', () => {
    // act
    const missing = deploymentProblems({ ...fine, pdsBaseUrl: '' });
    const notUrl = deploymentProblems({ ...fine, pdsBaseUrl: 'pds.acme.example' });
    const ftp = deploymentProblems({ ...fine, pdsBaseUrl: 'ftp://pds.acme.example' });

    // assess
    expect(missing).toEqual([expect.stringContaining('pdsBaseUrl is required for stage "prod"')]);
    expect(missing[0]).toContain('--param pdsBaseUrl=');
    expect(notUrl).toEqual([expect.stringContaining('is not an http(s) URL')]);
    expect(ftp).toEqual([expect.stringContaining('is not an http(s) URL')]);
  });

  it('refuses a plain http pdsBaseUrl outside the dev and local stages: credentials would travel in clear text', () => {
    // act
    const prod = deploymentProblems({ ...fine, pdsBaseUrl: 'http://pds.acme.example' });
    const dev = deploymentProblems({ ...fine, stage: 'dev', pdsBaseUrl: 'http://pds.internal.example' });

    // assess
    expect(prod).toEqual([
      'pdsBaseUrl "http://pds.acme.example" is plain http for stage "prod": the PDS credentials would cross the network in clear text. Give its https:// address (only the stages dev and local may use http).',
    ]);
    expect(dev).toEqual([]);
  });

  it('refuses a stage that would make a bucket name invalid, naming the longest that fits the region', () => {
    // prepare: pds-bridge-state-<12>-eu-central-1- leaves 20 characters, ap-southeast-1 (14) 18
    const refused = ['Prod', 'prod_1', 'prod-', 'a'.repeat(21), 'prod-s3alias', 'x--ol-s3'];
    const accepted = ['a'.repeat(20), 'qa-2', '1'];

    // act
    const problems = (stage: string, region = 'eu-central-1') =>
      deploymentProblems({ ...fine, stage, region });

    // assess
    for (const stage of refused) {
      expect(problems(stage), stage).toEqual([expect.stringContaining(`Stage "${stage}" would make`)]);
    }
    for (const stage of accepted) expect(problems(stage), stage).toEqual([]);
    expect(problems('a'.repeat(19), 'ap-southeast-1')[0]).toContain(
      'at most 18 characters in ap-southeast-1',
    );
    expect(problems('prod-s3alias')[0]).toContain('not ending in "-s3alias"');
  });

  it('accepts only true or false for reserveConcurrency', () => {
    expect(deploymentProblems({ ...fine, reserveConcurrency: 'true' })).toEqual([]);
    expect(deploymentProblems({ ...fine, reserveConcurrency: 'yes' })).toEqual([
      expect.stringContaining('reserveConcurrency must be true or false, not "yes"'),
    ]);
  });

  it('lists every problem at once', () => {
    const problems = deploymentProblems({
      stage: 'Prod',
      region: 'eu-central-1',
      pdsBaseUrl: '',
      reserveConcurrency: '',
      schedules: { messagingAssets: 'cron(0 * * * ? *)' },
    });

    expect(problems).toHaveLength(4);
    expect(problems[3]).toMatch(/^The messagingAssets schedule "cron\(0 \* \* \* \? \*\)" is not a rate/);
  });
});

describe('scheduleIntervalSeconds', () => {
  it('reads the interval of a rate between 1 minute and 8 hours', () => {
    expect(scheduleIntervalSeconds('rate(1 minute)')).toBe(60);
    expect(scheduleIntervalSeconds('rate(15 minutes)')).toBe(900);
    expect(scheduleIntervalSeconds('rate(8 hours)')).toBe(28_800);
  });

  it('explains why a cron, a too long or a malformed expression cannot be watched', () => {
    for (const expression of [
      'cron(0 12 * * ? *)',
      'rate(9 hours)',
      'rate(1 day)',
      'rate(30 seconds)',
      'rate(5)',
    ]) {
      expect(scheduleIntervalSeconds(expression), expression).toEqual(
        expect.stringContaining('is not a rate between 1 minute and 8 hours'),
      );
    }
  });
});

describe('unknownParamProblems', () => {
  const known = ['alarmEmail', 'apiThrottleRate', 'pdsBaseUrl', 'watchTtlDays'];

  it('accepts every known name, with or without a value', () => {
    expect(
      unknownParamProblems(['alarmEmail=ops@acme.example', 'pdsBaseUrl=https://x', 'watchTtlDays'], known),
    ).toEqual([]);
  });

  it('refuses a misspelt name with the closest known one and the list of all', () => {
    expect(unknownParamProblems(['alarmMail=ops@acme.example'], known)).toEqual([
      'Unknown --param "alarmMail": did you mean alarmEmail? Known parameters: alarmEmail, apiThrottleRate, pdsBaseUrl, watchTtlDays (docs/deployment.md, "Parameters").',
    ]);
    expect(unknownParamProblems(['pdsbaseurl=https://x'], known)[0]).toContain('did you mean pdsBaseUrl?');
  });

  it('names no suggestion when nothing is close, and reports each unknown name', () => {
    const problems = unknownParamProblems(['colour=blue', 'zzzzzzzzz=1'], known);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^Unknown --param "colour"\. Known parameters: alarmEmail,/);
  });
});

describe('knownParamNames', () => {
  it('reads the names from the templates, the required and the alarm ones included', () => {
    const names = knownParamNames(root);
    expect(names).toContain('pdsBaseUrl');
    expect(names).toContain('alarmEmail');
    expect(names).toContain('reserveConcurrency');
    expect(names).toEqual([...names].sort());
    expect(names).not.toContain('alarmMail');
  });
});
