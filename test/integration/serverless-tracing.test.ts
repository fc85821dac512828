/**
 * X-Ray tracing in the packaged template (osls package, offline): every function traces actively and
 * its role may send the segments. The functions have roles of their own (deploy/*.yml), which do not
 * get the grants osls gives its default role, so a function added without them is caught here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CloudFormationTemplate,
  dig,
  packageService,
  policyProblems,
  policyStatements,
  referencedId,
  resourcesOfType,
} from '../helpers/serverless.ts';

let template: CloudFormationTemplate;

beforeAll(async () => {
  template = await packageService(['--stage', 'ci', '--param', 'pdsBaseUrl=https://pds.ci.test']);
}, 180_000);

/** The X-Ray actions each role is allowed, from every policy attached to it. */
function xrayActionsByRole(): Map<string, Set<string>> {
  const byRole = new Map<string, Set<string>>();
  const grant = (role: string, actions: string[]) => {
    const granted = byRole.get(role) ?? new Set<string>();
    for (const action of actions) if (action.startsWith('xray:')) granted.add(action);
    byRole.set(role, granted);
  };
  for (const { where, statement } of policyStatements(template)) {
    if (statement.Effect !== 'Allow') continue;
    const actions = [statement.Action ?? []].flat();
    const [logicalId = ''] = where.split(' ');
    const resource = template.Resources[logicalId];
    // Inline policies belong to their role; managed and IAM policies to the roles they list.
    const roles =
      resource?.Type === 'AWS::IAM::Role'
        ? [logicalId]
        : [(dig(resource, 'Properties', 'Roles') as unknown[] | undefined) ?? []]
            .flat()
            .map(referencedId)
            .filter((role): role is string => role !== undefined);
    for (const role of roles) grant(role, actions);
  }
  return byRole;
}

describe('serverless template: X-Ray tracing', () => {
  it('traces every function actively', () => {
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');

    expect(functions.length).toBeGreaterThanOrEqual(6);
    for (const id of functions) {
      expect({ id, tracing: dig(template.Resources[id], 'Properties', 'TracingConfig') }).toEqual({
        id,
        tracing: { Mode: 'Active' },
      });
    }
  });

  it("lets every function's role send its segments to X-Ray", () => {
    const granted = xrayActionsByRole();

    for (const id of resourcesOfType(template, 'AWS::Lambda::Function')) {
      const role = referencedId(dig(template.Resources[id], 'Properties', 'Role'));
      expect({ id, role, xray: [...(granted.get(role ?? '') ?? [])].sort() }).toEqual({
        id,
        role: expect.any(String),
        xray: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
      });
    }
  });

  it('grants X-Ray nothing beyond sending segments, so the policy checks stay clean', () => {
    const xray = policyStatements(template).filter(({ statement }) =>
      [statement.Action ?? []].flat().some((action) => action.startsWith('xray:')),
    );

    expect(xray.map(({ statement }) => statement.Action)).toEqual([
      ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
    ]);
    expect(policyProblems(template)).toEqual([]);
  });
});
