import { describe, expect, it } from 'vitest';
import { EventDataError } from '../../packages/bridge/src/events/index.ts';
import { type MessageContent, withMessageContent } from '../../packages/bridge/src/polling/events.ts';

describe('withMessageContent', () => {
  it('gives the parsed document to the event', () => {
    // act
    const content = withMessageContent('<item><gtin>0614141123452</gtin></item>', (given) => given);

    // assess
    expect(content).toMatchObject({ document: { rootName: 'item' } });
  });

  it('gives the parse error and the raw XML when the XML does not parse', () => {
    // act
    const content = withMessageContent('<a><b></a>', (given) => given);

    // assess
    expect(content).toMatchObject({ parseError: { code: 'MALFORMED' }, rawXml: '<a><b></a>' });
  });

  it('builds the event again with an UNREPRESENTABLE parse error and the raw XML when the document does not fit the schema', () => {
    // prepare: an event whose schema refuses every document
    const build = (content: MessageContent) => {
      if ('document' in content)
        throw new EventDataError('pds.messaging-asset.received', 'document: too odd');
      return content;
    };

    // act
    const content = withMessageContent('<item/>', build);

    // assess
    expect(content).toEqual({
      parseError: {
        name: 'EventDataError',
        code: 'UNREPRESENTABLE',
        message: expect.stringContaining('document: too odd'),
      },
      rawXml: '<item/>',
    });
  });

  it('lets any other failure of the event through', () => {
    // act
    const build = () =>
      withMessageContent('<item/>', () => {
        throw new TypeError('bug');
      });

    // assess
    expect(build).toThrow(TypeError);
  });
});
