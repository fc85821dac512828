/**
 * The event queues and the webhook queue refuse senders other than the bridge (docs/security.md,
 * "Entry points"): each has a queue policy denying `sqs:SendMessage` to every principal but the
 * roles whose own policies let them send there, and the operators' role (`--param operatorRole`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { roleGrants } from '../helpers/iam.ts';
import { type CloudFormationTemplate, dig, packageService, referencedId } from '../helpers/serverless.ts';

const QUEUES = [
  'EventsQueue',
  'MessagingAssetEventsQueue',
  'SupplierReviewEventsQueue',
  'WebhookQueue',
  'WebhookSlowQueue',
];

let template: CloudFormationTemplate;
let withOperatorRole: CloudFormationTemplate;

beforeAll(async () => {
  [template, withOperatorRole] = await Promise.all([
    packageService(),
    packageService(['--param', 'operatorRole=ops/pds-operators']),
  ]);
}, 240_000);

interface Statement {
  Effect: string;
  Principal: unknown;
  Action: unknown;
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** The statements of every queue policy that names `queue`. */
function policyStatements(t: CloudFormationTemplate, queue: string): Statement[] {
  return Object.values(t.Resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::SQS::QueuePolicy' &&
        ((resource.Properties?.Queues ?? []) as unknown[]).some((ref) => referencedId(ref) === queue),
    )
    .flatMap((resource) => dig(resource.Properties, 'PolicyDocument', 'Statement') as Statement[]);
}

/** The roles of the template whose policies allow `sqs:SendMessage` on `queue`. */
function senders(t: CloudFormationTemplate, queue: string): string[] {
  return Object.entries(t.Resources)
    .filter(([, resource]) => resource.Type === 'AWS::IAM::Role')
    .filter(([id]) => roleGrants(t, id).get(queue)?.has('sqs:SendMessage'))
    .map(([id]) => id)
    .sort();
}

/** The principals the queue's Deny statement leaves out: role logical ids, and any other ARN as text. */
function exempted(t: CloudFormationTemplate, queue: string): { roles: string[]; others: unknown[] } {
  const denies = policyStatements(t, queue).filter(
    (statement) => statement.Effect === 'Deny' && statement.Action === 'sqs:SendMessage',
  );
  expect(denies, `${queue}: one Deny of sqs:SendMessage`).toHaveLength(1);
  const [deny] = denies as [Statement];
  expect(deny.Principal).toBe('*');
  expect(referencedId(deny.Resource)).toBe(queue);
  expect(Object.keys(deny.Condition ?? {})).toEqual(['ArnNotLike']);
  const principals = deny.Condition?.ArnNotLike?.['aws:PrincipalArn'] as unknown[];
  const roles: string[] = [];
  const others: unknown[] = [];
  for (const principal of principals) {
    const id = dig(principal, 'Fn::GetAtt') === undefined ? undefined : referencedId(principal);
    if (id !== undefined && t.Resources[id]?.Type === 'AWS::IAM::Role') roles.push(id);
    else others.push(principal);
  }
  return { roles: roles.sort(), others };
}

describe('serverless template: who may send to the event queues', () => {
  it.each(QUEUES)('denies sqs:SendMessage on %s to all but the roles granted to send there', (queue) => {
    // act
    const { roles, others } = exempted(template, queue);

    // assess
    expect(senders(template, queue).length).toBeGreaterThan(0);
    expect(roles).toEqual(senders(template, queue));
    expect(others).toEqual([
      { 'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/pds-bridge-dev-operator` },
    ]);
  });

  it('lets the operators name their own role for redrive and replay', () => {
    // act
    const { others } = exempted(withOperatorRole, 'EventsQueue');

    // assess
    expect(others).toEqual([
      { 'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/ops/pds-operators` },
    ]);
  });

  it('allows nothing through the queue policies: receiving stays with the consumers’ own IAM policies', () => {
    // act
    const allows = QUEUES.flatMap((queue) => policyStatements(template, queue)).filter(
      (statement) => statement.Effect !== 'Deny',
    );

    // assess
    expect(allows).toEqual([]);
  });
});
