import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { objectWriteOf, refusalOf, s3ErrorXml } from '../../packages/local/src/s3-preconditions.ts';

const ETAG = '"9b2cf535f27731c974343645a3985328"';
const OTHER_ETAG = '"d41d8cd98f00b204e9800998ecf8427e"';

describe('objectWriteOf', () => {
  it('reads a path-style PutObject with its conditions and decodes the key', () => {
    // act
    const write = objectWriteOf({
      method: 'PUT',
      url: '/state/watch/%C3%84%20b.json?x-id=PutObject',
      headers: { host: '127.0.0.1:4566', 'if-none-match': '*' },
    });

    // assess
    expect(write).toEqual({
      operation: 'PutObject',
      bucket: 'state',
      key: 'watch/Ä b.json',
      ifNoneMatch: '*',
    });
  });

  it('reads the bucket of a virtual-hosted-style request from the host name', () => {
    // act
    const write = objectWriteOf({
      method: 'DELETE',
      url: '/in/a.csv',
      headers: { host: 'drops.localhost:4566', 'if-match': ETAG },
    });

    // assess
    expect(write).toEqual({ operation: 'DeleteObject', bucket: 'drops', key: 'in/a.csv', ifMatch: ETAG });
  });

  it('treats completing a multipart upload as a write of its key', () => {
    // act
    const write = objectWriteOf({ method: 'POST', url: '/drops/big.zip?uploadId=u1', headers: {} });

    // assess
    expect(write).toEqual({ operation: 'CompleteMultipartUpload', bucket: 'drops', key: 'big.zip' });
  });

  it('leaves reads, part uploads, bucket operations and SQS requests alone', () => {
    // act
    const others = [
      { method: 'GET', url: '/state/a.json', headers: {} },
      { method: 'HEAD', url: '/state/a.json', headers: {} },
      { method: 'PUT', url: '/drops/big.zip?partNumber=2&uploadId=u1', headers: {} },
      { method: 'DELETE', url: '/drops/big.zip?uploadId=u1', headers: {} },
      { method: 'POST', url: '/drops/big.zip?uploads', headers: {} },
      { method: 'PUT', url: '/new-bucket', headers: {} },
      { method: 'PUT', url: '/new-bucket/', headers: {} },
      { method: 'POST', url: '/', headers: { 'content-type': 'application/x-amz-json-1.0' } },
    ].map(objectWriteOf);

    // assess
    expect(others).toEqual(others.map(() => undefined));
  });
});

describe('refusalOf', () => {
  const create = { operation: 'PutObject', bucket: 'state', key: 'a.json', ifNoneMatch: '*' } as const;
  const update = { operation: 'PutObject', bucket: 'state', key: 'a.json', ifMatch: ETAG } as const;

  it('lets a create through when the key holds nothing', () => {
    expect(refusalOf(create, undefined)).toBeUndefined();
  });

  it('refuses a create over an existing object with 412 PreconditionFailed naming If-None-Match', () => {
    expect(refusalOf(create, ETAG)).toMatchObject({
      status: 412,
      code: 'PreconditionFailed',
      details: { Condition: 'If-None-Match' },
    });
  });

  it('lets an update through at the current ETag, quoted or not', () => {
    expect(refusalOf(update, ETAG)).toBeUndefined();
    expect(refusalOf({ ...update, ifMatch: ETAG.replaceAll('"', '') }, ETAG)).toBeUndefined();
    expect(refusalOf({ ...update, ifMatch: `${OTHER_ETAG}, ${ETAG}` }, ETAG)).toBeUndefined();
  });

  it('refuses an update at another ETag with 412 PreconditionFailed naming If-Match', () => {
    expect(refusalOf(update, OTHER_ETAG)).toMatchObject({
      status: 412,
      code: 'PreconditionFailed',
      details: { Condition: 'If-Match' },
    });
  });

  it('answers 404 NoSuchKey to If-Match on a key that holds nothing, for writes and deletes', () => {
    expect(refusalOf(update, undefined)).toMatchObject({ status: 404, code: 'NoSuchKey' });
    expect(refusalOf({ ...update, operation: 'DeleteObject' }, undefined)).toMatchObject({
      status: 404,
      code: 'NoSuchKey',
    });
  });

  it('takes If-Match: * as "any object"', () => {
    expect(refusalOf({ ...update, ifMatch: '*' }, OTHER_ETAG)).toBeUndefined();
  });

  it('refuses If-None-Match with an ETag, or on a delete, as not implemented (501), as S3 does', () => {
    expect(refusalOf({ ...create, ifNoneMatch: ETAG }, undefined)).toMatchObject({
      status: 501,
      code: 'NotImplemented',
    });
    expect(refusalOf({ ...create, operation: 'DeleteObject' }, undefined)).toMatchObject({ status: 501 });
  });

  it('lets unconditional writes through whatever the key holds', () => {
    expect(refusalOf({ operation: 'PutObject', bucket: 'state', key: 'a.json' }, ETAG)).toBeUndefined();
  });
});

describe('s3ErrorXml', () => {
  it('writes the <Error> document S3 sends, escaping what the values contain', () => {
    // prepare
    const answer = {
      status: 404,
      code: 'NoSuchKey',
      message: 'The specified key does not exist.',
      details: { Key: 'in/<a> & b.csv' },
    };

    // act
    const xml = s3ErrorXml(answer, 'C3D13FE58DE4C810');

    // assess
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(new XMLParser({ parseTagValue: false }).parse(xml)).toEqual({
      '?xml': '',
      Error: {
        Code: 'NoSuchKey',
        Message: 'The specified key does not exist.',
        Key: 'in/<a> & b.csv',
        RequestId: 'C3D13FE58DE4C810',
      },
    });
  });
});
