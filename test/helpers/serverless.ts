import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import yauzl from 'yauzl';
import { cachedPackage, packagingInputs } from './package-cache.ts';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');

export interface CloudFormationTemplate {
  Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; DependsOn?: unknown; Condition?: string }
  >;
  Conditions?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
}

/** What `osls package` wrote besides the template: each zip's file names, and the resolved service. */
export interface PackagedService {
  template: CloudFormationTemplate;
  /** Entry names of every zip in the package directory, by zip file name (e.g. `api.zip`). */
  artifacts: Record<string, string[]>;
  /** The resolved provider settings from serverless-state.json (stage, region, runtime…). */
  provider: { stage: string; region: string } & Record<string, unknown>;
  /** The resolved service-wide package settings from serverless-state.json (patterns, individually…). */
  package: Record<string, unknown>;
}

/** One lock per checkout: the build empties dist/, so two packagers at once would package each other's gaps. */
const lockDir = path.join(
  tmpdir(),
  `pds-bridge-package-${createHash('sha256').update(root).digest('hex').slice(0, 12)}.lock`,
);
/** A lock older than this was left by a crashed run. */
const STALE_LOCK_MS = 10 * 60_000;

/** Runs `fn` while no other test process builds or packages this checkout (mkdir is atomic). */
async function exclusively<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      await mkdir(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await stat(lockDir).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (since > STALE_LOCK_MS) await rm(lockDir, { recursive: true, force: true });
      else await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

const mtime = (file: string) =>
  stat(file).then(
    (info) => info.mtimeMs,
    () => undefined,
  );

/** The handlers: every `packages/bridge/functions/<name>.ts`, bundled to `dist/<name>/`. */
async function functionNames(): Promise<string[]> {
  return (await readdir(path.join(root, 'packages', 'bridge', 'functions')))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -'.ts'.length));
}

/**
 * True when every function has its bundle and no source is newer than the oldest bundle, so test
 * files packaging one after the other build once instead of each time.
 */
async function bundlesAreFresh(names: string[]): Promise<boolean> {
  let oldestBundle = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const built = await mtime(path.join(root, 'dist', name, 'index.mjs'));
    if (built === undefined) return false;
    oldestBundle = Math.min(oldestBundle, built);
  }
  const sources = ['package-lock.json', 'scripts/build.ts', 'scripts/bundle-options.ts'];
  for (const dir of ['packages/bridge/functions', 'packages/bridge/src']) {
    for (const entry of await readdir(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) sources.push(path.relative(root, path.join(entry.parentPath, entry.name)));
    }
  }
  for (const source of sources) {
    if (((await mtime(path.join(root, source))) ?? 0) > oldestBundle) return false;
  }
  return true;
}

/** Where packages are kept between test files and runs (test/helpers/package-cache.ts), per checkout like the lock. */
const cacheDir = lockDir.replace(/\.lock$/, '.cache');

/**
 * Builds the bundles and runs `osls package` offline into a temporary directory, returning the
 * generated CloudFormation template. No AWS account or credentials are involved. Test files that
 * package run one after the other (a lock in the temporary directory), whatever vitest runs in
 * parallel; the bundles are rebuilt only when a source changed since the last build, and osls runs
 * only when no earlier call packaged the same arguments from the same inputs
 * (test/helpers/package-cache.ts). A refused packaging is never cached: it throws each time.
 */
export async function packageService(args: string[] = []): Promise<CloudFormationTemplate> {
  return (await packageServiceWithArtifacts(args)).template;
}

/**
 * {@link packageService}, plus what a deploy would upload: the entries of each function's zip and the
 * provider settings osls resolved (stage and region included).
 */
export async function packageServiceWithArtifacts(args: string[] = []): Promise<PackagedService> {
  // No profile or credentials: packaging must never need an AWS account.
  const { AWS_PROFILE: _profile, ...inherited } = process.env;
  const env = { ...inherited, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' };
  return exclusively(async () => {
    const names = await functionNames();
    if (!(await bundlesAreFresh(names)))
      await run(process.execPath, ['scripts/build.ts'], { cwd: root, env });
    return cachedPackage({
      root,
      cacheDir,
      inputs: packagingInputs(names),
      args,
      produce: () => runOsls(args, env),
    });
  });
}

/** Runs `osls package` into a temporary directory and reads what it wrote. */
async function runOsls(args: string[], env: NodeJS.ProcessEnv): Promise<PackagedService> {
  const outDir = await mkdtemp(path.join(tmpdir(), 'pds-bridge-package-'));
  try {
    await run(
      process.execPath,
      [path.join(root, 'node_modules/osls/bin/serverless.js'), 'package', '--package', outDir, ...args],
      { cwd: root, env },
    );
    const artifacts: Record<string, string[]> = {};
    for (const file of (await readdir(outDir)).filter((name) => name.endsWith('.zip')).sort()) {
      artifacts[file] = await zipEntryNames(path.join(outDir, file));
    }
    const state = JSON.parse(await readFile(path.join(outDir, 'serverless-state.json'), 'utf8')) as {
      service: {
        provider: PackagedService['provider'];
        initialServerlessConfig: { package: PackagedService['package'] };
      };
    };
    return {
      template: JSON.parse(
        await readFile(path.join(outDir, 'cloudformation-template-update-stack.json'), 'utf8'),
      ),
      artifacts,
      provider: state.service.provider,
      package: state.service.initialServerlessConfig.package,
    };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

/** The file names inside a zip archive, in archive order. */
async function zipEntryNames(file: string): Promise<string[]> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true }, (error, opened) => (error ? reject(error) : resolve(opened))),
  );
  return new Promise<string[]>((resolve, reject) => {
    const names: string[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      names.push(entry.fileName);
      zip.readEntry();
    });
    zip.once('end', () => resolve(names));
    zip.once('error', reject);
    zip.readEntry();
  });
}

/** Resources of one CloudFormation type, by logical id. */
export function resourcesOfType(template: CloudFormationTemplate, type: string): string[] {
  return Object.entries(template.Resources)
    .filter(([, resource]) => resource.Type === type)
    .map(([logicalId]) => logicalId)
    .sort();
}

/** A statement of an IAM policy document, as CloudFormation holds it (intrinsic functions unresolved). */
export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: unknown;
  NotResource?: unknown;
  Principal?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** A policy statement and where it was found, e.g. `IngestRole policy ingest`. */
export interface LocatedStatement {
  where: string;
  statement: PolicyStatement;
}

/** Resource types holding permission policies, and where in their properties the documents are. */
const POLICY_DOCUMENTS: Record<string, (properties: Record<string, unknown>) => Array<[string, unknown]>> = {
  'AWS::IAM::Role': (p) => inlinePolicies(p.Policies),
  'AWS::IAM::User': (p) => inlinePolicies(p.Policies),
  'AWS::IAM::Group': (p) => inlinePolicies(p.Policies),
  'AWS::IAM::Policy': (p) => [[`policy ${String(p.PolicyName)}`, p.PolicyDocument]],
  'AWS::IAM::RolePolicy': (p) => [[`policy ${String(p.PolicyName)}`, p.PolicyDocument]],
  'AWS::IAM::ManagedPolicy': (p) => [['managed policy', p.PolicyDocument]],
  'AWS::SQS::QueuePolicy': (p) => [['queue policy', p.PolicyDocument]],
  'AWS::S3::BucketPolicy': (p) => [['bucket policy', p.PolicyDocument]],
  'AWS::SNS::TopicPolicy': (p) => [['topic policy', p.PolicyDocument]],
  'AWS::SecretsManager::ResourcePolicy': (p) => [['secret policy', p.ResourcePolicy]],
  'AWS::KMS::Key': (p) => [['key policy', p.KeyPolicy]],
  'AWS::Events::EventBusPolicy': (p) => [['bus policy', { Statement: p.Statement }]],
};

function inlinePolicies(policies: unknown): Array<[string, unknown]> {
  return branches(policies).map((policy) => {
    const { PolicyName, PolicyDocument } = policy as { PolicyName?: unknown; PolicyDocument?: unknown };
    return [`policy ${String(PolicyName)}`, PolicyDocument];
  });
}

/** Both branches of an `Fn::If` (either may apply), flattened lists, `AWS::NoValue` left out. */
function branches(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(branches);
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (Array.isArray(record['Fn::If'])) return (record['Fn::If'] as unknown[]).slice(1).flatMap(branches);
    if (record.Ref === 'AWS::NoValue') return [];
  }
  return [value];
}

/**
 * Every statement of every permission policy in the template: inline policies of roles (users,
 * groups), IAM and managed policies, and the resource policies of queues, buckets, topics and
 * secrets, and the key policies of KMS keys. Trust policies (a role's AssumeRolePolicyDocument) are left out: they grant nothing.
 *
 * @example
 * ```ts
 * policyStatements(template).filter(({ statement }) => statement.Effect === 'Allow');
 * ```
 */
export function policyStatements(template: CloudFormationTemplate): LocatedStatement[] {
  const found: LocatedStatement[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    const documents = POLICY_DOCUMENTS[resource.Type]?.(resource.Properties ?? {}) ?? [];
    for (const [label, document] of documents) {
      for (const d of branches(document)) {
        for (const statement of branches((d as { Statement?: unknown }).Statement)) {
          found.push({ where: `${logicalId} ${label}`, statement: statement as PolicyStatement });
        }
      }
    }
  }
  return found;
}

const listOf = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** `*`, or a whole service: `sqs:*`. */
export function isWildcardAction(action: string): boolean {
  return action === '*' || /^[a-z0-9-]+:\*$/i.test(action);
}

/** Stands for a reference (`Ref`, `Fn::GetAtt`…) in a resource's text: one named resource, never a wildcard. */
const REFERENCE = '<reference>';

/** A resource as text: the template of an `Fn::Sub`, the joined parts of an `Fn::Join`, {@link REFERENCE} for references. */
function resourceText(resource: unknown): string {
  if (typeof resource === 'string') return resource;
  if (resource && typeof resource === 'object') {
    const record = resource as Record<string, unknown>;
    const sub = record['Fn::Sub'];
    if (typeof sub === 'string') return sub;
    if (Array.isArray(sub) && typeof sub[0] === 'string') return sub[0];
    const join = record['Fn::Join'];
    if (Array.isArray(join) && typeof join[0] === 'string' && Array.isArray(join[1])) {
      return (join[1] as unknown[])
        .map((part) => (typeof part === 'string' ? part : REFERENCE))
        .join(join[0]);
    }
  }
  return REFERENCE;
}

/** `*`, or an ARN whose resource part is `*` (every queue, every bucket, every secret of an account). */
export function isWildcardResource(resource: unknown): boolean {
  const text = resourceText(resource);
  if (text === '*') return true;
  // `${AWS::Region}` and friends hold colons of their own: one named value each, never a wildcard.
  const parts = text.replace(/\$\{[^}]*\}/g, 'value').split(':');
  return parts[0] === 'arn' && parts.length >= 6 && parts.slice(5).join(':') === '*';
}

/**
 * The one wildcard a key policy may hold: the statement that lets the account administer the key
 * through IAM (`kms:*` for the account's root principal, which stands for the account, not the root
 * user). AWS requires it in every key policy so the key stays manageable; CloudFormation refuses a
 * policy that would lock the account out. Exactly this Sid, this principal and this action.
 */
export function isKeyAdministration(statement: PolicyStatement): boolean {
  const principal = dig(statement.Principal, 'AWS');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a CloudFormation Fn::Sub template
  const root = 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root';
  return (
    statement.Sid === 'AccountAdministersThroughIam' &&
    listOf(statement.Action).join() === 'kms:*' &&
    resourceText(principal) === root &&
    Object.keys(statement.Principal as object).length === 1 &&
    statement.Condition === undefined
  );
}

/** What a traced function sends to X-Ray; IAM knows no narrower resource for them than `*`. */
const XRAY_WRITE_ACTIONS = new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']);

/**
 * The problems of a template's permission policies, one line each (empty when there are none):
 *
 * - an Allow statement granting a wildcard action (`*`, `service:*`) on a wildcard resource;
 * - an Allow statement on a wildcard resource at all, except `cloudwatch:PutMetricData` restricted by
 *   a `cloudwatch:namespace` condition (the only way that action can be scoped) and X-Ray's write
 *   actions (`xray:PutTraceSegments`, `xray:PutTelemetryRecords`), which take no resource but `*`;
 * - an Allow statement with `NotAction` or `NotResource` (it grants everything not listed);
 * - a role with managed policies attached (their statements are not in the template to check);
 * - in a KMS key policy (whose `Resource: '*'` always means the key itself, so it is no wildcard
 *   there): a wildcard action, or any principal (`*`), except {@link isKeyAdministration}.
 */
export function policyProblems(template: CloudFormationTemplate): string[] {
  const problems: string[] = [];
  for (const { where, statement } of policyStatements(template)) {
    if (statement.Effect !== 'Allow') continue;
    const name = `${where}${statement.Sid ? ` (${statement.Sid})` : ''}`;
    if (statement.NotAction !== undefined || statement.NotResource !== undefined) {
      problems.push(`${name} allows with NotAction/NotResource`);
      continue;
    }
    if (where.endsWith(' key policy')) {
      const principals = [statement.Principal, dig(statement.Principal, 'AWS')].flat();
      if (principals.includes('*')) problems.push(`${name} allows any principal`);
      const actions = listOf(statement.Action);
      if (actions.some(isWildcardAction) && !isKeyAdministration(statement)) {
        problems.push(`${name} grants ${actions.join(', ')} on the key`);
      }
      continue;
    }
    const actions = listOf(statement.Action);
    const wildcardResource = branches(statement.Resource).some(isWildcardResource);
    if (!wildcardResource) continue;
    if (actions.some(isWildcardAction)) {
      problems.push(`${name} grants ${actions.join(', ')} on a wildcard resource`);
      continue;
    }
    if (actions.every((action) => XRAY_WRITE_ACTIONS.has(action))) continue;
    const namespaced = statement.Condition?.StringEquals?.['cloudwatch:namespace'] !== undefined;
    if (!(actions.every((action) => action === 'cloudwatch:PutMetricData') && namespaced)) {
      problems.push(`${name} grants ${actions.join(', ')} on a wildcard resource`);
    }
  }
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::IAM::Role' && resource.Properties?.ManagedPolicyArns !== undefined) {
      problems.push(`${logicalId} attaches managed policies, which this check cannot read`);
    }
  }
  return problems;
}

/** The value under `keys` in nested objects, or undefined. */
export function dig(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (!current || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The logical id a `Ref` or `Fn::GetAtt` points at, if `value` is one. */
export function referencedId(value: unknown): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const record = value as { Ref?: unknown; 'Fn::GetAtt'?: unknown };
  if (typeof record.Ref === 'string') return record.Ref;
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  if (typeof getAtt === 'string') return getAtt.split('.')[0];
  return undefined;
}

/**
 * The dead-letter queues of the template, by logical id: every queue named as `deadLetterTargetArn`
 * of a redrive policy, as a schedule's `DeadLetterConfig`, as a function's `DeadLetterConfig`, or as
 * the on-failure destination of an asynchronous invocation config.
 */
export function deadLetterQueues(template: CloudFormationTemplate): string[] {
  const found = new Set<string>();
  const add = (value: unknown) => {
    const id = referencedId(value);
    if (id && template.Resources[id]?.Type === 'AWS::SQS::Queue') found.add(id);
  };
  for (const resource of Object.values(template.Resources)) {
    const p = resource.Properties;
    if (resource.Type === 'AWS::SQS::Queue') add(dig(p, 'RedrivePolicy', 'deadLetterTargetArn'));
    if (resource.Type === 'AWS::Scheduler::Schedule') add(dig(p, 'Target', 'DeadLetterConfig', 'Arn'));
    if (resource.Type === 'AWS::Lambda::Function') add(dig(p, 'DeadLetterConfig', 'TargetArn'));
    if (resource.Type === 'AWS::Lambda::EventInvokeConfig') {
      add(dig(p, 'DestinationConfig', 'OnFailure', 'Destination'));
    }
  }
  return [...found].sort();
}
