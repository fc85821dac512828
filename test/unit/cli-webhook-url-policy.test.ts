import { describe, expect, it } from 'vitest';
import { webhookUrlPolicy } from '../../packages/cli/src/commands/webhooks.ts';

describe('pds bridge webhooks: the URL policy endpoints are checked with', () => {
  it("is the deployed stage's (public) even when the shell says any", () => {
    expect(webhookUrlPolicy(undefined, 'prod', { WEBHOOK_URL_POLICY: 'any' })).toBe('public');
  });

  it('is what --url-policy says, for a deployed stage too', () => {
    expect(webhookUrlPolicy('any', 'prod', {})).toBe('any');
  });

  it("is the environment's, else any, for the local stack", () => {
    expect(webhookUrlPolicy(undefined, 'local', { WEBHOOK_URL_POLICY: 'public' })).toBe('public');
    expect(webhookUrlPolicy(undefined, undefined, {})).toBe('any');
  });

  it('refuses an unknown policy, naming where it came from and the choices', () => {
    expect(() => webhookUrlPolicy(undefined, 'local', { WEBHOOK_URL_POLICY: 'open' })).toThrow(
      "WEBHOOK_URL_POLICY must be one of public, any, got 'open'",
    );
  });
});
