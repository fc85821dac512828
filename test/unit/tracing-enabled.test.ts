import { describe, expect, it } from 'vitest';
import { tracingEnabled } from '../../packages/bridge/src/lambda/tracing.ts';

const LAMBDA = { AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' };

describe('tracingEnabled', () => {
  it('turns tracing on in Lambda', () => {
    // act / assess
    expect(tracingEnabled(LAMBDA)).toBe(true);
    expect(tracingEnabled({ ...LAMBDA, POWERTOOLS_TRACE_ENABLED: 'true' })).toBe(true);
  });

  it.each([
    ['outside Lambda (the local stack, tests)', {}],
    ['when switched off', { ...LAMBDA, POWERTOOLS_TRACE_ENABLED: ' FALSE ' }],
    ['under sam local', { ...LAMBDA, AWS_SAM_LOCAL: 'true' }],
    ["in Amplify's mock", { AWS_EXECUTION_ENV: 'AWS_Lambda_amplify-mock' }],
  ])('leaves the tracer unloaded %s', (_where, env) => {
    // act / assess
    expect(tracingEnabled(env)).toBe(false);
  });
});
