/**
 * GS1 Response (3.1) messages of any size, shaped as GS1Response.xsd writes them: the property
 * tests of the GDSN summary, the N×N regression test and bench/xml.ts build their responses here.
 * GLNs and GTINs are GS1's example company prefix 0614141.
 */

/** The shape of one response message. */
export interface Gs1ResponseShape {
  /** `gS1Response` elements (one per message answered). */
  responses: number;
  /** `transactionResponse` elements per response; every other one REJECTED. */
  transactions: number;
  /** `gS1Error`s per response, spread over the exception levels (document and attribute first). */
  errors: number;
  /**
   * `gtin` elements written inside each document exception, as some senders add them (the old reader
   * gave every error of the exception every one of them: the N×N).
   */
  gtinElementsPerException?: number;
  /** Errors per document exception (default 2: one on the document, one on a GTIN attribute). */
  errorsPerDocument?: number;
  /** Characters of each error description (its GTIN included). */
  descriptionLength?: number;
}

const gtinOf = (n: number): string => `0061414${String(n % 10_000_000).padStart(7, '0')}`;
const id = (owner: string, value: string): string =>
  `<entityIdentification>${value}</entityIdentification><contentOwner><gln>${owner}</gln></contentOwner>`;

function error(code: string, n: number, descriptionLength: number): string {
  const text = `GTIN ${gtinOf(n)} refused`.padEnd(descriptionLength, '.');
  return `<gS1Error><errorCode>${code}</errorCode><errorDateTime>2026-11-27T07:00:00.000Z</errorDateTime><errorDescription languageCode="en">${text}</errorDescription></gS1Error>`;
}

/**
 * The XML of one GS1 Response message of `shape`.
 *
 * @example
 * summariseGdsnMessage(parseMessagingAsset(gs1Response({ responses: 1, transactions: 2, errors: 100 })));
 */
export function gs1Response(shape: Gs1ResponseShape): string {
  const provider = '0614141000012';
  const parts: string[] = [];
  let n = 0;
  for (let r = 0; r < shape.responses; r++) {
    const message = `CIN-${r}`;
    parts.push(
      `<gS1Response><originatingMessageIdentifier>${id(provider, message)}</originatingMessageIdentifier><receiver>${provider}</receiver><sender>0614141000029</sender>`,
    );
    for (let t = 0; t < shape.transactions; t++) {
      parts.push(
        `<transactionResponse><transactionIdentifier>${id(provider, `TX-${r}-${t}`)}</transactionIdentifier><responseStatusCode>${t % 2 === 1 ? 'REJECTED' : 'ACCEPTED'}</responseStatusCode></transactionResponse>`,
      );
    }
    if (shape.errors > 0) parts.push(exception(r, shape, () => n++));
    parts.push('</gS1Response>');
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<gs1_response:gS1ResponseMessage xmlns:gs1_response="urn:gs1:gdsn:gs1_response:xsd:3" xmlns:sh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader">
<sh:StandardBusinessDocumentHeader><sh:HeaderVersion>1.0</sh:HeaderVersion><sh:Sender><sh:Identifier Authority="GS1">0614141000029</sh:Identifier></sh:Sender><sh:Receiver><sh:Identifier Authority="GS1">${provider}</sh:Identifier></sh:Receiver><sh:DocumentIdentification><sh:Standard>GS1</sh:Standard><sh:TypeVersion>3.1</sh:TypeVersion><sh:InstanceIdentifier>RESP-GENERATED</sh:InstanceIdentifier><sh:Type>gS1Response</sh:Type><sh:CreationDateAndTime>2026-11-27T07:00:05.000Z</sh:CreationDateAndTime></sh:DocumentIdentification></sh:StandardBusinessDocumentHeader>
${parts.join('\n')}
</gs1_response:gS1ResponseMessage>
`;
}

/**
 * One transaction exception of response `r`: its errors spread over documents of one command, each
 * document with `errorsPerDocument` errors, the last of them on a GTIN attribute.
 */
function exception(r: number, shape: Gs1ResponseShape, next: () => number): string {
  const provider = '0614141000012';
  const length = shape.descriptionLength ?? 60;
  const perDocument = Math.max(1, shape.errorsPerDocument ?? 2);
  const gtinElements = Array.from(
    { length: shape.gtinElementsPerException ?? 0 },
    (_, g) => `<gtin>${gtinOf(1_000_000 + g)}</gtin>`,
  ).join('');
  const documents: string[] = [];
  for (let left = shape.errors; left > 0; left -= perDocument) {
    const count = Math.min(left, perDocument);
    const own = Array.from({ length: count > 1 ? count - 1 : 1 }, () => error('GDSN.1091', next(), length));
    const attribute =
      count > 1
        ? `<attributeException><attributeName>gtin</attributeName><attributeValue>${gtinOf(next())}</attributeValue><xPath>/catalogueItemNotificationMessage/transaction/documentCommand/catalogueItemNotification/catalogueItem/tradeItem/gtin</xPath>${error('GDSN.0420', next(), length)}</attributeException>`
        : '';
    documents.push(
      `<documentException>${id(provider, `DOC-${r}-${documents.length}`)}${gtinElements}${own.join('')}${attribute}</documentException>`,
    );
  }
  return `<gS1Exception><exceptionMessageTypeCode>GDSN</exceptionMessageTypeCode><transactionException>${id(provider, `TX-${r}-1`)}<commandException>${id(provider, `DC-${r}-1`)}${documents.join('')}</commandException></transactionException></gS1Exception>`;
}
