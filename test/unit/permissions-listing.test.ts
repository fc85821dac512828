import { describe, expect, it } from 'vitest';
import {
  claimCheckGrant,
  listsStateBucket,
  renderPermissionTable,
  stateObjects,
  withStateListing,
} from '../../packages/bridge/src/lambda/permissions.ts';

describe('the ListBucket grant on the state bucket', () => {
  it('lists exactly the patterns the role reads, sorted, and not those it only writes', () => {
    // prepare
    const grants = [
      { resource: stateObjects('watch/'), actions: ['s3:DeleteObject', 's3:GetObject'], why: 'reads' },
      {
        resource: stateObjects('checkpoints/messaging-assets.json'),
        actions: ['s3:GetObject', 's3:PutObject'],
        why: 'moves',
      },
      claimCheckGrant,
    ];

    // act
    const listing = listsStateBucket(grants, 'tells missing from forbidden');

    // assess
    expect(claimCheckGrant.actions).toEqual(['s3:PutObject']);
    expect(listing).toEqual({
      resource: { kind: 'state-bucket', prefixes: ['checkpoints/messaging-assets.json', 'watch/*'] },
      actions: ['s3:ListBucket'],
      why: 'tells missing from forbidden',
    });
  });

  it('puts the listing first in the row and shows its prefixes in the table', () => {
    // act
    const row = withStateListing('lists the watch list', [
      { resource: stateObjects('watch/'), actions: ['s3:GetObject'], why: 'reads' },
    ]);

    // assess
    expect(renderPermissionTable({ api: row }).split('\n')[2]).toBe(
      '| api | state bucket, listed under `watch/*` | `s3:ListBucket` | lists the watch list |',
    );
  });

  it('refuses a role that reads nothing in the state bucket', () => {
    // act / assess
    expect(() => listsStateBucket([claimCheckGrant], 'lists')).toThrow('needs no ListBucket grant');
  });
});
