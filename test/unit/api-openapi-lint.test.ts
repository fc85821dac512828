/**
 * The OpenAPI document GET /openapi.json serves, linted with Redocly's rules as configured in
 * redocly.yaml (recommended-strict: warnings count as errors). Runs in `npm test`, so in CI.
 */
import path from 'node:path';
import { lintFromString, loadConfig, type NormalizedProblem } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { createApi } from '../../packages/bridge/src/api/index.ts';
import { MemoryStateStore } from '../../packages/bridge/src/state/memory.ts';
import { apiEvent } from '../helpers/apigw.ts';
import { RecordingQueue } from '../helpers/publications.ts';

const root = path.resolve(import.meta.dirname, '../..');

async function servedDocument(): Promise<Record<string, unknown>> {
  const api = createApi({
    store: new MemoryStateStore(),
    queue: new RecordingQueue(),
    pds: async () => {
      throw new Error('the document needs no PDS');
    },
    settings: { maxKeys: 1000, channelsCacheMs: 60_000, watchTtlMs: 30 * 86_400_000, auth: { mode: 'iam' } },
    version: '1.0.0',
  });
  const result = await api.handle(apiEvent({ path: '/openapi.json', iam: true }));
  return JSON.parse(result.body as string) as Record<string, unknown>;
}

async function lint(document: unknown): Promise<NormalizedProblem[]> {
  const config = await loadConfig({ configPath: path.join(root, 'redocly.yaml') });
  return lintFromString({
    source: JSON.stringify(document, null, 2),
    absoluteRef: path.join(root, 'openapi.json'),
    config,
  });
}

const summary = (problems: NormalizedProblem[]) =>
  problems.map(
    (problem) =>
      `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
  );

describe('the OpenAPI document under Redocly lint', () => {
  it('has no errors and no warnings', async () => {
    // Act
    const problems = await lint(await servedDocument());

    // Assess
    expect(summary(problems)).toEqual([]);
  });

  it('fails a document that breaks a rule (the linter is really at work)', async () => {
    // Prepare: an operation without an id and a response without a description
    const document = (await servedDocument()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const health = document.paths['/health']?.get as {
      operationId?: string;
      responses: Record<string, unknown>;
    };
    delete health.operationId;
    health.responses['200'] = {};

    // Act
    const problems = await lint(document);

    // Assess
    expect(
      problems.filter((problem) => problem.severity === 'error').map((problem) => problem.ruleId),
    ).toEqual(expect.arrayContaining(['operation-operationId', 'struct']));
  });
});
