import { describe, expect, it } from 'vitest';
import { eventQueueOverrideFor, eventQueueUrlFor } from '../../packages/bridge/src/config/event-routing.ts';
import { ConfigError, loadConfig, requireSetting, setting } from '../../packages/bridge/src/config/index.ts';

const BASE = {
  PDS_BASE_URL: 'https://pds.example.com',
  PDS_USERNAME: 'demo',
  PDS_PASSWORD: 'hunter2-secret',
};

function problemsOf(fn: () => unknown): readonly string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('reads the base variables and normalises the PDS address', () => {
    // prepare
    const env = { ...BASE, PDS_BASE_URL: ' https://pds.example.com/tenant/// ', STATE_BUCKET: 'my-state' };

    // act
    const config = loadConfig(env);

    // assess
    expect(config.pdsBaseUrl).toBe('https://pds.example.com/tenant');
    expect(config.settings.STATE_BUCKET).toBe('my-state');
    expect(config.settings.EVENTS_QUEUE_URL).toBeUndefined();
    expect(config.pdsCredentials.kind).toBe('basic');
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.settings)).toBe(true);
    expect(Object.isFrozen(config.pdsCredentials)).toBe(true);
  });

  it('keeps the password usable but out of JSON and key listings', () => {
    // act
    const config = loadConfig(BASE);

    // assess
    const credentials = config.pdsCredentials;
    expect(credentials.kind === 'basic' && credentials.password).toBe('hunter2-secret');
    expect(config.settings.PDS_PASSWORD).toBe('hunter2-secret');
    expect(JSON.stringify(config)).not.toContain('hunter2');
    expect(Object.keys(config.settings)).not.toContain('PDS_PASSWORD');
  });

  it('accepts a Secrets Manager secret instead of a user and password', () => {
    // act
    const config = loadConfig({
      PDS_BASE_URL: 'http://127.0.0.1:4010',
      PDS_CREDENTIALS_SECRET_ID: 'pds/creds',
    });

    // assess
    expect(config.pdsCredentials).toEqual({ kind: 'secret', secretId: 'pds/creds' });
  });

  it('lists every bad or missing variable in one error', () => {
    // prepare
    const env = {
      PDS_BASE_URL: '',
      STATE_BUCKET: 'Not_A_Bucket',
      EVENTS_QUEUE_URL: 'ftp://queue',
      AWS_REGION: 'Europe',
    };

    // act
    const problems = problemsOf(() => loadConfig(env));

    // assess
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(
      /^PDS_BASE_URL is required \(the PDS address.*https:\/\/pds\.example\.com\)$/,
    );
    expect(problems.join('\n')).toMatch(/STATE_BUCKET must be an S3 bucket name.*\(got "Not_A_Bucket"\)/);
    expect(problems.join('\n')).toMatch(/EVENTS_QUEUE_URL must be an http\(s\) URL, not ftp/);
    expect(problems.join('\n')).toMatch(/AWS_REGION must be an AWS region name/);
    expect(problems.join('\n')).toMatch(
      /PDS credentials are missing: set PDS_USERNAME and PDS_PASSWORD .* or PDS_CREDENTIALS_SECRET_ID/,
    );
  });

  it('says what is expected in the error message itself', () => {
    // act
    const act = () => loadConfig({ PDS_USERNAME: 'demo', PDS_PASSWORD: 'x' });

    // assess
    expect(act).toThrow(ConfigError);
    expect(act).toThrow(/^Invalid configuration: PDS_BASE_URL is required \(the PDS address/);
  });

  it('never echoes a password, even when the credentials are incomplete', () => {
    // prepare
    const env = {
      PDS_BASE_URL: 'https://user:topsecret@pds.example.com',
      PDS_PASSWORD: 'hunter2-secret',
    };

    // act
    const problems = problemsOf(() => loadConfig(env));

    // assess
    const text = problems.join('\n');
    expect(text).toMatch(
      /PDS_BASE_URL must not contain credentials; give them in their own variables \(got "https:\/\/\*\*\*@/,
    );
    expect(text).toMatch(/PDS_USERNAME is required when PDS_PASSWORD is set/);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('topsecret');
  });

  it('does not echo the value of a secret setting that is invalid', () => {
    // prepare
    const settings = {
      API_TOKEN: setting.string('the bearer token', {
        secret: true,
        pattern: /^tok_/,
        hint: 'a token starting with tok_',
      }),
    };

    // act
    const problems = problemsOf(() => loadConfig({ ...BASE, API_TOKEN: 'leaked-value' }, { settings }));

    // assess
    expect(problems).toEqual(['API_TOKEN must be a token starting with tok_ (the bearer token)']);
  });

  it.each([
    [{ PDS_USERNAME: 'demo' }, /PDS_PASSWORD is required when PDS_USERNAME is set/],
    [{ PDS_PASSWORD: 'x' }, /PDS_USERNAME is required when PDS_PASSWORD is set/],
  ])('refuses half a set of credentials %#', (credentials, expected) => {
    // act
    const problems = problemsOf(() =>
      loadConfig({ PDS_BASE_URL: 'https://pds.example.com', ...credentials }),
    );

    // assess
    expect(problems).toEqual([expect.stringMatching(expected)]);
  });

  it.each(['pds.example.com', 'https://pds.example.com/?tenant=1', 'not a url'])(
    'refuses %s as the PDS address',
    (value) => {
      // act
      const problems = problemsOf(() => loadConfig({ ...BASE, PDS_BASE_URL: value }));

      // assess
      expect(problems).toEqual([expect.stringMatching(/^PDS_BASE_URL must/)]);
    },
  );

  it('checks the function own settings with their defaults', () => {
    // prepare
    const settings = {
      INGEST_MAX_IMPORTS: setting.integer('imports in flight per object', { max: 32, default: 4 }),
      INGEST_PREFIX: setting.string('only keys under this prefix'),
      FIRST_RUN: setting.oneOf(['now', 'backlog'], 'what a first poll emits', { default: 'now' }),
      DRY_RUN: setting.boolean('do not call the PDS', { default: false }),
      WATCH_TTL: setting.duration('how long a key stays watched', { default: 1000 }),
    };

    // act
    const defaults = loadConfig(BASE, { settings });
    const given = loadConfig(
      {
        ...BASE,
        INGEST_MAX_IMPORTS: '8',
        INGEST_PREFIX: 'in/',
        FIRST_RUN: 'backlog',
        DRY_RUN: 'YES',
        WATCH_TTL: '30d',
      },
      { settings },
    );

    // assess
    expect(defaults.settings).toMatchObject({
      INGEST_MAX_IMPORTS: 4,
      FIRST_RUN: 'now',
      DRY_RUN: false,
      WATCH_TTL: 1000,
    });
    expect(defaults.settings.INGEST_PREFIX).toBeUndefined();
    expect(given.settings).toMatchObject({
      INGEST_MAX_IMPORTS: 8,
      INGEST_PREFIX: 'in/',
      FIRST_RUN: 'backlog',
      DRY_RUN: true,
      WATCH_TTL: 30 * 86_400_000,
    });
  });

  it('reports bad values of the function own settings next to the base ones', () => {
    // prepare
    const settings = {
      INGEST_MAX_IMPORTS: setting.integer('imports in flight per object'),
      POLL_CONCURRENCY: setting.integer('PDS requests in flight', { min: 1, max: 64 }),
      FIRST_RUN: setting.oneOf(['now', 'backlog'], 'what a first poll emits'),
      WATCH_TTL: setting.duration('how long a key stays watched'),
      DRY_RUN: setting.boolean('do not call the PDS'),
    };
    const env = {
      ...BASE,
      PDS_BASE_URL: undefined,
      INGEST_MAX_IMPORTS: '0',
      POLL_CONCURRENCY: '2.5',
      FIRST_RUN: 'later',
      WATCH_TTL: '3 weeks',
      DRY_RUN: 'maybe',
    };

    // act
    const problems = problemsOf(() => loadConfig(env, { settings }));

    // assess
    expect(problems).toEqual([
      expect.stringMatching(/^PDS_BASE_URL is required/),
      'INGEST_MAX_IMPORTS must be a positive integer (got "0") (imports in flight per object)',
      'POLL_CONCURRENCY must be an integer from 1 to 64 (got "2.5") (PDS requests in flight)',
      'FIRST_RUN must be one of now, backlog (got "later") (what a first poll emits)',
      expect.stringMatching(/^WATCH_TTL must be a positive duration such as 500ms/),
      'DRY_RUN must be true or false (got "maybe") (do not call the PDS)',
    ]);
  });

  it('requires what the function declares it needs', () => {
    // prepare
    const settings = { API_TOKEN: setting.string('the bearer token of the local stack', { secret: true }) };

    // act
    const problems = problemsOf(() => loadConfig(BASE, { settings, require: ['STATE_BUCKET', 'API_TOKEN'] }));
    const config = loadConfig(
      { ...BASE, STATE_BUCKET: 'state-bucket', API_TOKEN: 't0ken' },
      { settings, require: ['STATE_BUCKET', 'API_TOKEN'] },
    );

    // assess
    expect(problems).toEqual([
      expect.stringMatching(/^STATE_BUCKET is required by this function \(the S3 bucket for checkpoints/),
      'API_TOKEN is required by this function (the bearer token of the local stack)',
    ]);
    const bucket: string = config.settings.STATE_BUCKET;
    expect(bucket).toBe('state-bucket');
    expect(JSON.stringify(config)).not.toContain('t0ken');
  });

  it('checks that every event type the function emits has a queue', () => {
    // prepare
    const options = { eventTypes: ['pds.ingest.completed', 'pds.publication.failed'] };

    // act
    const problems = problemsOf(() =>
      loadConfig({ ...BASE, INGEST_EVENTS_QUEUE_URL: 'http://q/ingest' }, options),
    );
    const config = loadConfig({ ...BASE, EVENTS_QUEUE_URL: 'http://q/all' }, options);

    // assess
    expect(problems).toEqual([
      'EVENTS_QUEUE_URL or PUBLICATION_EVENTS_QUEUE_URL is required to send pds.publication.failed events (the SQS queue URL for events)',
    ]);
    expect(eventQueueUrlFor(config, 'pds.publication.failed')).toBe('http://q/all');
  });

  it('refuses a function setting that shadows a base variable', () => {
    // act
    const act = () => loadConfig(BASE, { settings: { STATE_BUCKET: setting.string('mine') } });

    // assess
    expect(act).toThrow(/STATE_BUCKET is a base variable/);
  });
});

describe('requireSetting', () => {
  it('returns a set variable', () => {
    // prepare
    const config = loadConfig({
      ...BASE,
      PUBLICATION_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/1/pub',
    });

    // act
    const url = requireSetting(config, 'PUBLICATION_QUEUE_URL');

    // assess
    expect(url).toBe('https://sqs.eu-central-1.amazonaws.com/1/pub');
  });

  it('names the missing variable and what it is for', () => {
    // prepare
    const config = loadConfig(BASE, {
      settings: { CHUNK_SIZE: setting.integer('watched keys per fan-out chunk') },
    });

    // act
    const missingBase = () => requireSetting(config, 'STATE_BUCKET');
    const missingOwn = () => requireSetting(config, 'CHUNK_SIZE');

    // assess
    expect(missingBase).toThrow(ConfigError);
    expect(missingBase).toThrow(/STATE_BUCKET is required by this function \(the S3 bucket for checkpoints/);
    expect(missingOwn).toThrow(/CHUNK_SIZE is required by this function \(watched keys per fan-out chunk\)/);
  });
});

describe('eventQueueUrlFor', () => {
  it('prefers the family override and falls back to EVENTS_QUEUE_URL', () => {
    // prepare
    const config = loadConfig({
      ...BASE,
      EVENTS_QUEUE_URL: 'http://q/all',
      INGEST_EVENTS_QUEUE_URL: 'http://q/ingest',
      MESSAGING_ASSET_EVENTS_QUEUE_URL: 'http://q/assets',
      SUPPLIER_REVIEW_EVENTS_QUEUE_URL: 'http://q/reviews',
    });

    // act
    const routes = [
      'pds.ingest.completed',
      'pds.ingest.failed',
      'pds.messaging-asset.received',
      'pds.supplier-review.received',
      'pds.publication.completed',
      'pds.something-new.happened',
    ].map((type) => eventQueueUrlFor(config, type));

    // assess
    expect(routes).toEqual([
      'http://q/ingest',
      'http://q/ingest',
      'http://q/assets',
      'http://q/reviews',
      'http://q/all',
      'http://q/all',
    ]);
  });

  it('names both variables when no queue is configured', () => {
    // prepare
    const config = loadConfig(BASE);

    // act
    const act = () => eventQueueUrlFor(config, 'pds.supplier-review.received');

    // assess
    expect(act).toThrow(ConfigError);
    expect(act).toThrow(/EVENTS_QUEUE_URL or SUPPLIER_REVIEW_EVENTS_QUEUE_URL is required/);
  });

  it('maps each family to its override variable', () => {
    // assess
    expect(eventQueueOverrideFor('pds.publication.completed')).toBe('PUBLICATION_EVENTS_QUEUE_URL');
    expect(eventQueueOverrideFor('pds.ingestion')).toBeUndefined();
  });
});
