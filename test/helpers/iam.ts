/**
 * The three views of a function's permissions that test/integration/serverless-iam.test.ts holds
 * together (docs/deployment.md, "Permissions"):
 *
 * - granted: the Allow statements of its role in the packaged template;
 * - tabled: its row of the permission table (packages/bridge/src/<flow>/permissions.ts), resolved against the
 *   template, plus the platform grants Lambda itself uses on its behalf;
 * - called: the IAM actions of the SDK commands its bundle can send, found in the bundle esbuild
 *   builds for it (tree-shaken as shipped, not minified, so class names stay readable).
 */
import path from 'node:path';
import { build } from 'esbuild';
import ts from 'typescript';
import { eventQueueOverrideFor } from '../../packages/bridge/src/config/event-routing.ts';
import type { Grant, PermissionTable, Resource } from '../../packages/bridge/src/lambda/permissions.ts';
import { functionBuildOptions } from '../../scripts/build.ts';
import { type CloudFormationTemplate, dig, referencedId } from './serverless.ts';

const root = path.resolve(import.meta.dirname, '../..');

/** Actions by resource; resources as {@link resourceName} writes them (`StateBucket/ingest/*`, `EventsQueue`). */
export type Grants = Map<string, Set<string>>;

/** A Lambda function of the template, as the permission checks need it. */
export interface TemplateFunction {
  /** The handler's name: `packages/bridge/functions/<name>.ts`, `dist/<name>/index.handler`. */
  name: string;
  logicalId: string;
  role: string;
  properties: Record<string, unknown>;
}

/** Every function of the template, by handler name. */
export function templateFunctions(template: CloudFormationTemplate): Map<string, TemplateFunction> {
  const found = new Map<string, TemplateFunction>();
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const properties = resource.Properties ?? {};
    const name = /^dist\/([^/]+)\/index\.handler$/.exec(String(properties.Handler))?.[1];
    const role = referencedId(properties.Role);
    if (name === undefined || role === undefined) {
      throw new Error(`${logicalId}: expected a dist/<name>/index.handler and a role of the template`);
    }
    found.set(name, { name, logicalId, role, properties });
  }
  return found;
}

/**
 * A policy resource as text: a reference is the logical id it names (`EventsQueue`), `${X.Arn}` in a
 * `Fn::Sub` becomes `X`, and so does an S3 ARN built from a `${XName}` variable (the drop bucket,
 * whose name depends on a parameter): `${StateBucket.Arn}/ingest/*` is `StateBucket/ingest/*`.
 */
export function resourceName(resource: unknown): string {
  if (typeof resource === 'string') return resource;
  const id = referencedId(resource);
  if (id !== undefined) return id;
  const sub = dig(resource, 'Fn::Sub');
  const text = typeof sub === 'string' ? sub : Array.isArray(sub) ? String(sub[0]) : undefined;
  if (text === undefined) return JSON.stringify(resource);
  return text
    .replace(/\$\{(\w+)\.Arn\}/g, '$1')
    .replace(/^arn:\$\{AWS::Partition\}:s3:::\$\{(\w+)Name\}/, '$1')
    .replace(
      /^arn:\$\{AWS::Partition\}:events:\$\{AWS::Region\}:\$\{AWS::AccountId\}:event-bus\/\$\{(\w+)Name\}$/,
      '$1',
    );
}

const listOf = (value: unknown): unknown[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

function add(grants: Grants, resource: string, actions: Iterable<string>): void {
  const held = grants.get(resource) ?? new Set<string>();
  for (const action of actions) held.add(action);
  grants.set(resource, held);
}

/**
 * A statement's condition as a suffix of its resource's name: `?s3:prefix=ingest/*,watch/*` for the
 * one condition the roles use (StringLike on `s3:prefix`, its patterns sorted), `''` for none. Any
 * other condition throws, so a grant is never compared without what narrows it.
 */
export function conditionSuffix(condition: unknown): string {
  if (condition === undefined) return '';
  const operators = Object.keys(condition as object);
  const keys = Object.keys((condition as Record<string, object>).StringLike ?? {});
  if (
    operators.length !== 1 ||
    operators[0] !== 'StringLike' ||
    keys.length !== 1 ||
    keys[0] !== 's3:prefix'
  ) {
    throw new Error(`a condition the permission checks do not know: ${JSON.stringify(condition)}`);
  }
  const patterns = listOf(dig(condition, 'StringLike', 's3:prefix'))
    .map(String)
    .sort();
  return prefixSuffix(patterns);
}

/** `?s3:prefix=a,b`: how a ListBucket grant narrowed to `patterns` is named. */
export function prefixSuffix(patterns: readonly string[]): string {
  return `?s3:prefix=${[...patterns].sort().join(',')}`;
}

/**
 * What a role is allowed, merged by resource: its inline policies, and the statements of the policies
 * attached to it from outside (an `AWS::IAM::ManagedPolicy` or `AWS::IAM::Policy` naming it in `Roles`,
 * as deploy/tracing.yml does for X-Ray).
 */
export function roleGrants(template: CloudFormationTemplate, role: string): Grants {
  const grants: Grants = new Map();
  const attached = Object.values(template.Resources)
    .filter(
      (resource) =>
        (resource.Type === 'AWS::IAM::ManagedPolicy' || resource.Type === 'AWS::IAM::Policy') &&
        listOf(resource.Properties?.Roles).some((ref) => referencedId(ref) === role),
    )
    .map((resource) => resource.Properties);
  for (const policy of [...listOf(template.Resources[role]?.Properties?.Policies), ...attached]) {
    for (const statement of listOf(dig(policy, 'PolicyDocument', 'Statement'))) {
      const { Effect, Action, Resource, Condition } = statement as {
        Effect: string;
        Action: unknown;
        Resource: unknown;
        Condition?: unknown;
      };
      if (Effect !== 'Allow') continue;
      const condition = conditionSuffix(Condition);
      for (const resource of listOf(Resource))
        add(grants, `${resourceName(resource)}${condition}`, listOf(Action) as string[]);
    }
  }
  return grants;
}

/** The logical id a configuration variable of the function refers to (`EVENTS_QUEUE_URL` → `EventsQueue`). */
function variableTarget(fn: TemplateFunction, variable: string): string | undefined {
  return referencedId(dig(fn.properties, 'Environment', 'Variables', variable));
}

/** The queues whose messages invoke the function (its SQS event source mappings). */
export function triggerQueues(template: CloudFormationTemplate, fn: TemplateFunction): string[] {
  return Object.values(template.Resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::Lambda::EventSourceMapping' &&
        referencedId(resource.Properties?.FunctionName) === fn.logicalId,
    )
    .map((resource) => referencedId(resource.Properties?.EventSourceArn))
    .filter((id): id is string => id !== undefined && template.Resources[id]?.Type === 'AWS::SQS::Queue');
}

/** Where a table's resource is in the template, for this function; throws when it is not there. */
export function resolveResource(
  template: CloudFormationTemplate,
  fn: TemplateFunction,
  resource: Resource,
): string {
  const required = (id: string | undefined, what: string): string => {
    if (id === undefined)
      throw new Error(`${fn.name}: the table names ${what}, which the template does not give it`);
    return id;
  };
  const stateBucket = () => required(variableTarget(fn, 'STATE_BUCKET'), 'the state bucket (STATE_BUCKET)');
  switch (resource.kind) {
    case 'state-bucket':
      return `${stateBucket()}${prefixSuffix(resource.prefixes)}`;
    case 'state-objects':
      return `${stateBucket()}/${resource.pattern}`;
    case 'drop-bucket':
      return `DropBucket${prefixSuffix([`${String(dig(fn.properties, 'Environment', 'Variables', 'INGEST_PREFIX') ?? '')}*`])}`;
    case 'drop-objects':
      return `DropBucket/${String(dig(fn.properties, 'Environment', 'Variables', 'INGEST_PREFIX') ?? '')}*`;
    case 'queue':
    case 'secret':
      return required(variableTarget(fn, resource.variable), resource.variable);
    case 'secret-names': {
      // Granted by name: the ARN of the secrets below the prefix the function's variable holds.
      const prefix = dig(fn.properties, 'Environment', 'Variables', resource.variable);
      if (typeof prefix !== 'string') {
        throw new Error(
          `${fn.name}: the table names secrets below ${resource.variable}, which the template does not give it`,
        );
      }
      return `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:${prefix}${resource.pattern}`;
    }
    case 'event-queue': {
      const override = eventQueueOverrideFor(resource.eventType);
      const routed = override === undefined ? undefined : variableTarget(fn, override);
      return routed ?? required(variableTarget(fn, 'EVENTS_QUEUE_URL'), `a queue for ${resource.eventType}`);
    }
    case 'event-bus': {
      // The bus is optional (deploy/eventbridge.yml); its grant names it by the Sub variable EventBusName.
      const variables = dig(fn.properties, 'Environment', 'Variables') as Record<string, unknown> | undefined;
      if (variables?.[resource.variable] === undefined) {
        throw new Error(
          `${fn.name}: the table names the bus in ${resource.variable}, which the template does not give it`,
        );
      }
      return 'EventBus';
    }
    case 'trigger-queue': {
      const [queue, ...more] = triggerQueues(template, fn);
      if (more.length > 0) throw new Error(`${fn.name}: more than one trigger queue; name the queue instead`);
      return required(queue, 'the queue that invokes it');
    }
  }
}

/** Actions Lambda's event source mapping calls on the function's trigger queue, with the role's credentials. */
export const EVENT_SOURCE_ACTIONS = ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'];
/** Actions Lambda calls to write the function's logs. */
export const LOG_ACTIONS = ['logs:CreateLogStream', 'logs:PutLogEvents'];
/** Actions Lambda's X-Ray integration calls when active tracing is on. */
export const XRAY_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];
/** What Lambda calls to hand a failed asynchronous invocation to its destination, by destination type. */
const DESTINATION_ACTIONS: Record<string, string> = {
  'AWS::SQS::Queue': 'sqs:SendMessage',
  'AWS::SNS::Topic': 'sns:Publish',
  'AWS::Lambda::Function': 'lambda:InvokeFunction',
  'AWS::Events::EventBus': 'events:PutEvents',
};

/**
 * Grants the function's role needs for what Lambda does on its behalf, not its code: logs, X-Ray
 * (with active tracing), consuming its trigger queues, and delivering failed asynchronous invocations
 * to their dead-letter queue or on-failure destination.
 */
export function platformGrants(template: CloudFormationTemplate, fn: TemplateFunction): Grants {
  const grants: Grants = new Map();
  const logGroup = `arn:\${AWS::Partition}:logs:\${AWS::Region}:\${AWS::AccountId}:log-group:/aws/lambda/${String(fn.properties.FunctionName)}:*`;
  add(grants, logGroup, LOG_ACTIONS);
  if (dig(fn.properties, 'TracingConfig', 'Mode') === 'Active') add(grants, '*', XRAY_ACTIONS);
  for (const queue of triggerQueues(template, fn)) add(grants, queue, EVENT_SOURCE_ACTIONS);
  const destinations = [dig(fn.properties, 'DeadLetterConfig', 'TargetArn')];
  for (const resource of Object.values(template.Resources)) {
    if (
      resource.Type === 'AWS::Lambda::EventInvokeConfig' &&
      referencedId(resource.Properties?.FunctionName) === fn.logicalId
    ) {
      destinations.push(dig(resource.Properties, 'DestinationConfig', 'OnFailure', 'Destination'));
    }
  }
  for (const destination of destinations) {
    const id = referencedId(destination);
    const action = id === undefined ? undefined : DESTINATION_ACTIONS[template.Resources[id]?.Type ?? ''];
    if (id !== undefined && action !== undefined) add(grants, id, [action]);
  }
  return grants;
}

/** The function's table row, resolved against the template. */
export function tabledGrants(
  template: CloudFormationTemplate,
  fn: TemplateFunction,
  row: readonly Grant[],
): Grants {
  const grants: Grants = new Map();
  for (const grant of row) add(grants, resolveResource(template, fn, grant.resource), grant.actions);
  return grants;
}

/** One line per action granted but not expected (`+`) or expected but not granted (`-`), sorted. */
export function grantDifferences(granted: Grants, expected: Grants): string[] {
  const lines: string[] = [];
  for (const [resource, actions] of granted) {
    for (const action of actions) {
      if (!expected.get(resource)?.has(action)) lines.push(`+ ${action} on ${resource}`);
    }
  }
  for (const [resource, actions] of expected) {
    for (const action of actions) {
      if (!granted.get(resource)?.has(action)) lines.push(`- ${action} on ${resource}`);
    }
  }
  return lines.sort();
}

/** Merges grants (the platform's and the table's). */
export function mergeGrants(...all: Grants[]): Grants {
  const merged: Grants = new Map();
  for (const grants of all) for (const [resource, actions] of grants) add(merged, resource, actions);
  return merged;
}

/**
 * The IAM actions each SDK command is authorised as (AWS's Service Authorization Reference). A command
 * found in a bundle and missing here fails the test: add it with its actions.
 *
 * GetObject and HeadObject need ListBucket as well: the code tells a missing key from a forbidden
 * one, by S3's 404 (given only to a caller that may list the bucket) or, after a 403, by listing the
 * exact key (packages/bridge/src/state/s3/store.ts, packages/bridge/src/ingest/s3/adapters.ts).
 */
export const COMMAND_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  PutEventsCommand: ['events:PutEvents'],
  DescribeEventBusCommand: ['events:DescribeEventBus'],
  GetObjectCommand: ['s3:GetObject', 's3:ListBucket'],
  HeadObjectCommand: ['s3:GetObject', 's3:ListBucket'],
  PutObjectCommand: ['s3:PutObject'],
  DeleteObjectCommand: ['s3:DeleteObject'],
  ListObjectsV2Command: ['s3:ListBucket'],
  GetObjectTaggingCommand: ['s3:GetObjectTagging'],
  PutObjectTaggingCommand: ['s3:PutObjectTagging'],
  SendMessageCommand: ['sqs:SendMessage'],
  SendMessageBatchCommand: ['sqs:SendMessage'],
  ChangeMessageVisibilityBatchCommand: ['sqs:ChangeMessageVisibility'],
  GetQueueUrlCommand: ['sqs:GetQueueUrl'],
  GetSecretValueCommand: ['secretsmanager:GetSecretValue'],
  CreateSecretCommand: ['secretsmanager:CreateSecret'],
  DeleteSecretCommand: ['secretsmanager:DeleteSecret'],
};

/**
 * Commands a bundle carries that it sends only when a call site is in the bundle too. The S3 state
 * store implements every operation of the StateStore port, so every function that keeps state carries
 * DeleteObjectCommand; a function deletes records only when its code calls the port's `delete`
 * (`store.delete(…)`: packages/bridge/src/state/claim.ts, packages/bridge/src/state/watch-list.ts), which tree-shaking leaves out of
 * a bundle that never reaches it.
 */
export const SENT_ONLY_WITH: Readonly<Record<string, RegExp>> = {
  DeleteObjectCommand: /\bstore\.delete\(/,
};

/**
 * An action S3 checks instead of its base action when the request names a version: the table may list
 * it beside its base action, for an adapter that reads or tags versions (packages/bridge/src/ingest/s3/adapters.ts).
 */
export const VERSION_ACTIONS: Readonly<Record<string, string>> = {
  's3:GetObjectVersion': 's3:GetObject',
  's3:GetObjectVersionTagging': 's3:GetObjectTagging',
  's3:PutObjectVersionTagging': 's3:PutObjectTagging',
};

/** The JavaScript of function `name` as it ships (every chunk), except that names are kept. */
export async function bundleText(name: string): Promise<string> {
  const result = await build({
    ...functionBuildOptions(name),
    minify: false,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles
    .filter((file) => file.path.endsWith('.mjs'))
    .map((file) => file.text)
    .join('\n');
}

/** The SDK commands a bundle constructs (`new GetObjectCommand(`; esbuild may suffix a renamed class with digits). */
export function commandsIn(text: string): string[] {
  return [
    ...new Set([...text.matchAll(/\bnew (\w+?Command)\d*\(/g)].map((match) => match[1] as string)),
  ].sort();
}

/**
 * The IAM actions the code in a bundle can call, or the commands it constructs that
 * {@link COMMAND_ACTIONS} does not know.
 */
export function calledActions(text: string): { actions: string[]; unknown: string[] } {
  const actions = new Set<string>();
  const unknown: string[] = [];
  for (const command of commandsIn(text)) {
    const mapped = COMMAND_ACTIONS[command];
    if (mapped === undefined) {
      unknown.push(command);
      continue;
    }
    const callSite = SENT_ONLY_WITH[command];
    if (callSite && !callSite.test(text)) continue;
    for (const action of mapped) actions.add(action);
  }
  return { actions: [...actions].sort(), unknown };
}

/**
 * One line per action the code calls without the table listing it (`-`), or the table lists without
 * the code calling it (`+`); a version action counts as called when its base action is.
 */
export function callDifferences(called: readonly string[], row: readonly Grant[]): string[] {
  const tabled = new Set(row.flatMap((grant) => grant.actions));
  const lines: string[] = [];
  for (const action of called) if (!tabled.has(action)) lines.push(`- ${action}: called, not in the table`);
  for (const action of tabled) {
    const base = VERSION_ACTIONS[action] ?? action;
    if (!called.includes(base)) lines.push(`+ ${action}: in the table, never called`);
  }
  return lines.sort();
}

/** Every function's row, from the flows' tables. */
export function mergeTables(...tables: PermissionTable[]): PermissionTable {
  return Object.assign({}, ...tables);
}

/** The files that declare the StateStore port's `delete`: the port and its implementations. */
const STATE_STORE_FILES = [
  'packages/bridge/src/state/store.ts',
  'packages/bridge/src/state/s3/store.ts',
  'packages/bridge/src/state/memory.ts',
].map((file) => path.join(root, file));

/**
 * Every call of the StateStore port's `delete` in `packages/bridge/src/` and `packages/bridge/functions/`, found by type (the method
 * the call resolves to is declared by the port or an implementation), as `file:line` and the call's
 * text. {@link SENT_ONLY_WITH} recognises such calls by their text in a bundle; this finds the ones it
 * would miss.
 */
export function stateStoreDeleteCalls(): Array<{ where: string; text: string }> {
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('tsconfig.json could not be read');
  const sources = config.fileNames.filter((file) =>
    /^packages\/bridge\/(src|functions)\//.test(path.relative(root, file)),
  );
  const program = ts.createProgram(sources, config.options);
  const checker = program.getTypeChecker();
  const calls: Array<{ where: string; text: string }> = [];
  for (const file of program.getSourceFiles()) {
    if (!sources.includes(file.fileName)) continue;
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'delete'
      ) {
        const declarations = checker.getSymbolAtLocation(node.expression.name)?.declarations ?? [];
        if (
          declarations.some((declaration) => STATE_STORE_FILES.includes(declaration.getSourceFile().fileName))
        ) {
          const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
          calls.push({
            where: `${path.relative(root, file.fileName)}:${line + 1}`,
            text: node.getText(file),
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return calls;
}
