/**
 * `pds bridge check --stage S`: after a deploy, is the stage whole and working (packages/cli/src/ops/check.ts)?
 * A deployed stage only: the local stack has no CloudFormation stack, alarms or schedules.
 */
import { UsageError } from '@pds-bridge/bridge/core';
import { createSqsClient } from '@pds-bridge/bridge/lambda/aws-clients.ts';
import { integerFlag, stringFlag } from '../args.ts';
import type { Command } from '../command.ts';
import { connectAwsDeployment, DEFAULT_CALL_TIMEOUT_MS } from '../ops/aws/deployment.ts';
import { checkDeployment } from '../ops/check.ts';
import { OperatorTargetError } from '../ops/errors.ts';
import { SqsOperatorQueues } from '../ops/sqs/queues.ts';
import { isStageName, LOCAL_STAGE } from '../ops/target.ts';
import { checkText } from './bridge-text.ts';

const check: Command = {
  name: 'bridge check',
  summary:
    'after a deploy: the stack, the API, the PDS reached with the bridge’s own credentials, queues and DLQs, alarms, schedules',
  description:
    "One line per check, ✓ or ✗, and under each ✗ what to do. The stack pds-bridge-<stage> is complete with its outputs; GET /health answers; GET /health/pds (signed with your AWS credentials) proves the api function reaches the PDS with its own role and secret; each queue exists with its oldest message's age and an empty dead-letter queue; the stage's CloudWatch alarms are not in ALARM; the pollers' schedules are enabled. Exit code 0 when every check passes, 1 when one fails, 2 when the command cannot run (no stage, no credentials or region). Each call has a deadline (--timeout). Needs read-only permissions only: docs/deployment.md, \"Check it works\".",
  args: '',
  minArgs: 0,
  maxArgs: 0,
  options: {
    stage: {
      type: 'string',
      value: 'STAGE',
      description: 'the deployed stage (default $PDS_BRIDGE_STAGE)',
    },
    timeout: {
      type: 'string',
      value: 'SECONDS',
      description: `deadline of each AWS or HTTP call (default ${DEFAULT_CALL_TIMEOUT_MS / 1000})`,
    },
  },
  examples: ['pds bridge check --stage prod', 'pds bridge check --stage prod --json'],
  async run(context) {
    const { flags, io, command } = context;
    const stage = stringFlag(flags, 'stage') ?? io.env.PDS_BRIDGE_STAGE;
    if (stage === undefined || stage === LOCAL_STAGE) {
      throw new UsageError(
        'name the deployed stage: --stage STAGE (or PDS_BRIDGE_STAGE), with AWS credentials and AWS_REGION; for the local stack, npm start prints what runs and pds bridge status shows its queues',
        command,
      );
    }
    if (!isStageName(stage)) {
      throw new UsageError(
        `--stage must be a stage name as deployed (lower-case letters, digits, '-'), got '${stage}'`,
        command,
      );
    }
    const timeoutMs =
      (integerFlag(flags, 'timeout', command, { min: 1, max: 120 }) ?? DEFAULT_CALL_TIMEOUT_MS / 1000) * 1000;
    const deployment = await connectAwsDeployment({ timeoutMs }).catch((error: unknown) => {
      if (error instanceof OperatorTargetError) throw new UsageError(error.message, command);
      throw error;
    });
    const sqs = createSqsClient({
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 5_000, requestTimeout: timeoutMs },
    });
    try {
      const report = await checkDeployment(deployment.probe, new SqsOperatorQueues({ sqs }), {
        stage,
        region: deployment.region,
      });
      return { data: report, text: () => checkText(report), failed: !report.ok };
    } finally {
      sqs.destroy();
      deployment.close();
    }
  },
};

/** `pds bridge check`. */
export const bridgeCheckCommands: Command[] = [check];
