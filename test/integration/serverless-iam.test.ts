/**
 * Least privilege, checked three ways for every function (docs/deployment.md, "Permissions"): its
 * role grants exactly its row of the permission table plus the platform grants; the table lists
 * exactly the AWS calls its bundle can make; and the docs show the table as it is.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_PERMISSIONS } from '../../packages/bridge/src/api/permissions.ts';
import { INGEST_PERMISSIONS } from '../../packages/bridge/src/ingest/permissions.ts';
import { dropObjects, renderPermissionTable } from '../../packages/bridge/src/lambda/permissions.ts';
import { POLLING_PERMISSIONS } from '../../packages/bridge/src/polling/permissions.ts';
import { PUBLICATION_PERMISSIONS } from '../../packages/bridge/src/publications/permissions.ts';
import { WEBHOOK_PERMISSIONS } from '../../packages/bridge/src/webhooks/permissions.ts';
import { functionNames } from '../../scripts/build.ts';
import {
  bundleText,
  callDifferences,
  calledActions,
  grantDifferences,
  mergeGrants,
  mergeTables,
  platformGrants,
  roleGrants,
  SENT_ONLY_WITH,
  stateStoreDeleteCalls,
  type TemplateFunction,
  tabledGrants,
  templateFunctions,
} from '../helpers/iam.ts';
import { type CloudFormationTemplate, packageService } from '../helpers/serverless.ts';

const root = path.resolve(import.meta.dirname, '../..');
const TABLE = mergeTables(
  INGEST_PERMISSIONS,
  POLLING_PERMISSIONS,
  API_PERMISSIONS,
  PUBLICATION_PERMISSIONS,
  WEBHOOK_PERMISSIONS,
);
const NAMES = await functionNames();

describe('the permissions of every function', () => {
  let template: CloudFormationTemplate;
  let functions: Map<string, TemplateFunction>;

  beforeAll(async () => {
    template = await packageService();
    functions = templateFunctions(template);
  }, 240_000);

  const fn = (name: string): TemplateFunction => {
    const found = functions.get(name);
    if (!found) throw new Error(`packages/bridge/functions/${name}.ts has no function in the template`);
    return found;
  };

  it('has a table row for every function, and a function for every row', () => {
    // assess
    expect(Object.keys(TABLE).sort()).toEqual(NAMES);
    expect([...functions.keys()].sort()).toEqual(NAMES);
  });

  it('gives every function a role of its own', () => {
    // act
    const roles = NAMES.map((name) => fn(name).role);

    // assess
    expect(new Set(roles).size).toBe(NAMES.length);
  });

  it.each(NAMES)('grants %s exactly its table row and what Lambda does on its behalf', (name) => {
    // prepare
    const expected = mergeGrants(
      platformGrants(template, fn(name)),
      tabledGrants(template, fn(name), TABLE[name] ?? []),
    );

    // act
    const granted = roleGrants(template, fn(name).role);

    // assess
    expect(grantDifferences(granted, expected)).toEqual([]);
  });

  it.each(NAMES)(
    'lists in the table of %s exactly the AWS calls its bundle makes',
    async (name) => {
      // act
      const { actions, unknown } = calledActions(await bundleText(name));

      // assess
      expect(unknown, 'SDK commands without their IAM actions in COMMAND_ACTIONS').toEqual([]);
      expect(callDifferences(actions, TABLE[name] ?? [])).toEqual([]);
    },
    60_000,
  );

  it('finds every delete of a state record by the text the bundle scan looks for', () => {
    // act
    const calls = stateStoreDeleteCalls();

    // assess
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter(({ text }) => !SENT_ONLY_WITH.DeleteObjectCommand?.test(text))).toEqual([]);
  }, 60_000);

  it('narrows every s3:ListBucket grant of the template with an s3:prefix condition', () => {
    // act: every Allow statement of every IAM role and policy that grants ListBucket
    const unnarrowed: string[] = [];
    for (const [id, resource] of Object.entries(template.Resources)) {
      const policies =
        resource.Type === 'AWS::IAM::Role'
          ? ((resource.Properties?.Policies as unknown[] | undefined) ?? [])
          : resource.Type === 'AWS::IAM::ManagedPolicy' || resource.Type === 'AWS::IAM::Policy'
            ? [resource.Properties]
            : [];
      for (const policy of policies) {
        const document = (policy as { PolicyDocument?: { Statement?: unknown } }).PolicyDocument;
        for (const statement of [document?.Statement ?? []].flat() as Array<Record<string, unknown>>) {
          const granted = [statement.Action].flat().map(String);
          if (statement.Effect !== 'Allow' || !granted.some((a) => a === 's3:ListBucket' || a === 's3:*'))
            continue;
          const patterns = [
            (statement.Condition as { StringLike?: Record<string, unknown> } | undefined)?.StringLike?.[
              's3:prefix'
            ] ?? [],
          ].flat();
          if (patterns.length === 0) unnarrowed.push(`${id} ${String(statement.Sid)}`);
        }
      }
    }

    // assess
    expect(unnarrowed).toEqual([]);
  });

  it('is shown as it is in docs/deployment.md', async () => {
    // act
    const docs = await readFile(path.join(root, 'docs/deployment.md'), 'utf8');

    // assess
    expect(docs).toContain(renderPermissionTable(TABLE));
  });
});

describe('the permission checks', () => {
  let template: CloudFormationTemplate;

  beforeAll(async () => {
    template = await packageService();
  }, 240_000);

  /** The template with `change` applied to a copy of the ingest role's statements. */
  function withIngestStatements(change: (statements: Array<Record<string, unknown>>) => void) {
    const copy = structuredClone(template);
    const policies = copy.Resources.IngestRole?.Properties?.Policies as Array<{
      PolicyDocument: { Statement: Array<Record<string, unknown>> };
    }>;
    change(policies[0]?.PolicyDocument.Statement ?? []);
    return copy;
  }

  function ingestDifferences(changed: CloudFormationTemplate): string[] {
    const ingest = templateFunctions(changed).get('ingest') as TemplateFunction;
    const expected = mergeGrants(
      platformGrants(changed, ingest),
      tabledGrants(changed, ingest, TABLE.ingest ?? []),
    );
    return grantDifferences(roleGrants(changed, ingest.role), expected);
  }

  it('names a grant no call needs', () => {
    // prepare
    const changed = withIngestStatements((statements) => {
      const progress = statements.find((statement) => statement.Sid === 'ProgressRecords');
      if (progress) progress.Action = [...(progress.Action as string[]), 's3:DeleteObject'];
    });

    // act / assess
    expect(ingestDifferences(changed)).toEqual(['+ s3:DeleteObject on StateBucket/ingest/*']);
  });

  it('names a ListBucket grant that lost its s3:prefix condition, or lists other prefixes', () => {
    // prepare
    const unconditioned = withIngestStatements((statements) => {
      const listing = statements.find((statement) => statement.Sid === 'ListStateRecords');
      if (listing) delete listing.Condition;
    });
    const widened = withIngestStatements((statements) => {
      const listing = statements.find((statement) => statement.Sid === 'ListStateRecords');
      if (listing)
        listing.Condition = {
          StringLike: {
            's3:prefix': ['ingest/*', 'activity-index/ingest/*', 'publish-failures/*', 'watch/*'],
          },
        };
    });

    // act / assess
    expect(ingestDifferences(unconditioned)).toEqual([
      '+ s3:ListBucket on StateBucket',
      '- s3:ListBucket on StateBucket?s3:prefix=activity-index/ingest/*,ingest/*,publish-failures/*',
    ]);
    expect(ingestDifferences(widened)).toEqual([
      '+ s3:ListBucket on StateBucket?s3:prefix=activity-index/ingest/*,ingest/*,publish-failures/*,watch/*',
      '- s3:ListBucket on StateBucket?s3:prefix=activity-index/ingest/*,ingest/*,publish-failures/*',
    ]);
  });

  it('refuses to compare a grant under a condition it does not know', () => {
    // prepare
    const changed = withIngestStatements((statements) => {
      const listing = statements.find((statement) => statement.Sid === 'ListStateRecords');
      if (listing) listing.Condition = { StringEquals: { 's3:prefix': 'ingest/' } };
    });

    // act / assess
    expect(() => ingestDifferences(changed)).toThrow('a condition the permission checks do not know');
  });

  it('names a call without its grant', () => {
    // prepare
    const changed = withIngestStatements((statements) => {
      statements.splice(
        statements.findIndex((statement) => statement.Sid === 'PdsCredentials'),
        1,
      );
    });

    // act / assess
    expect(ingestDifferences(changed)).toEqual(['- secretsmanager:GetSecretValue on PdsCredentialsSecret']);
  });

  it('takes X-Ray grants as platform grants while the function traces, and as extra grants otherwise', () => {
    // prepare: as packaged, ingest is traced and TracingPolicy (deploy/tracing.yml) grants X-Ray
    const untraced = structuredClone(template);
    const ingest = untraced.Resources.IngestLambdaFunction?.Properties as Record<string, unknown>;
    delete ingest.TracingConfig;
    const withoutPolicy = structuredClone(template);
    delete withoutPolicy.Resources.TracingPolicy;

    // act / assess
    expect(ingestDifferences(template)).toEqual([]);
    expect(ingestDifferences(untraced)).toEqual([
      '+ xray:PutTelemetryRecords on *',
      '+ xray:PutTraceSegments on *',
    ]);
    expect(ingestDifferences(withoutPolicy)).toEqual([
      '- xray:PutTelemetryRecords on *',
      '- xray:PutTraceSegments on *',
    ]);
  });

  it('counts the state store DeleteObject only where the code deletes a record', () => {
    // prepare
    const carried = 'new GetObjectCommand(a); new PutObjectCommand(b); new DeleteObjectCommand(c);';

    // act
    const kept = calledActions(carried).actions;
    const deleting = calledActions(`${carried} await deps.store.delete(key, etag);`).actions;

    // assess
    expect(kept).not.toContain('s3:DeleteObject');
    expect(deleting).toContain('s3:DeleteObject');
    const withoutDelete = (TABLE['publish-worker'] ?? []).map((grant) => ({
      ...grant,
      actions: grant.actions.filter((action) => action !== 's3:DeleteObject'),
    }));
    expect(callDifferences(deleting, withoutDelete)).toContain('- s3:DeleteObject: called, not in the table');
  });

  it('refuses an SDK command whose IAM actions it does not know', () => {
    // act
    const { unknown } = calledActions('await sqs.send(new PurgeQueueCommand2({ QueueUrl }));');

    // assess
    expect(unknown).toEqual(['PurgeQueueCommand']);
  });

  it('takes a version action as called with its base action, and not without it', () => {
    // prepare
    const row = [{ resource: dropObjects, actions: ['s3:GetObject', 's3:GetObjectVersion'], why: 'reads' }];

    // act / assess
    expect(callDifferences(['s3:GetObject'], row)).toEqual([]);
    expect(callDifferences([], row)).toEqual([
      '+ s3:GetObject: in the table, never called',
      '+ s3:GetObjectVersion: in the table, never called',
    ]);
  });
});
