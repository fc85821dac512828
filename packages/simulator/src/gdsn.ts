/**
 * GDSN 3.1 CatalogueItemConfirmation messages, in the exact shape of the fixtures in
 * test/fixtures/gdsn/cic-3.1-*.xml: SBDH, transaction, documentCommand ADD, one confirmation.
 * The state is SYNCHRONISED for an item without problems, REVIEW otherwise with one status detail
 * per problem (CIC999, an English description, corrective action ACTION_NEEDED).
 */

/** One problem the recipient reports back, usually a validation result. */
export interface ConfirmationProblem {
  message: string;
  /** The attribute concerned, named in the expected corrective information. */
  attribute?: string;
}

export interface ConfirmationInput {
  /** Number used in the message's identifiers (instance, transaction, command, confirmation). */
  messageNumber: number;
  /** Epoch milliseconds. */
  createdAt: number;
  primaryKey: string;
  /** GLN of the recipient that confirms (the SBDH sender and `recipientGLN`). */
  recipientGln: string;
  /** GLN of the data source, i.e. the supplier (the SBDH receiver and `dataSource`). */
  dataSourceGln: string;
  /** GLN of the recipient's data pool; left out when absent. */
  recipientDataPoolGln?: string;
  /** ISO 3166 numeric, for example '276'. */
  targetMarketCountryCode: string;
  problems: ConfirmationProblem[];
  /** The state to send; default SYNCHRONISED without problems, REVIEW with them. */
  state?: 'RECEIVED' | 'REVIEW' | 'SYNCHRONISED' | 'REJECTED';
}

/**
 * The GTIN of a primary key: left-padded to 14 digits when numeric, otherwise the key unchanged.
 *
 * @example
 * gtin14Of('614141123452'); // '00614141123452'
 */
export function gtin14Of(primaryKey: string): string {
  return /^\d{1,14}$/.test(primaryKey) ? primaryKey.padStart(14, '0') : primaryKey;
}

/** Control characters XML 1.0 does not allow at all, not even escaped; they are dropped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching exactly these characters is the point.
const XML_FORBIDDEN_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/**
 * Escapes a value for XML text and for the double-quoted attributes this module writes.
 *
 * @example
 * escapeXml('0,5 l "Pfand" & <more>'); // '0,5 l &quot;Pfand&quot; &amp; &lt;more&gt;'
 */
export function escapeXml(value: string): string {
  return value
    .replace(XML_FORBIDDEN_CHARACTERS, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');
}

/** The confirmation state a message with these problems carries. */
export function confirmationStateOf(problems: readonly ConfirmationProblem[]): 'SYNCHRONISED' | 'REVIEW' {
  return problems.length === 0 ? 'SYNCHRONISED' : 'REVIEW';
}

/**
 * Builds the XML text of one CatalogueItemConfirmation message; every value is escaped.
 *
 * @example
 * buildCatalogueItemConfirmation({ messageNumber: 1, createdAt: Date.now(), primaryKey: '614141123452',
 *   recipientGln: '0614141000005', dataSourceGln: '0614141000012', targetMarketCountryCode: '276', problems: [] });
 */
export function buildCatalogueItemConfirmation(input: ConfirmationInput): string {
  const created = new Date(input.createdAt).toISOString();
  const number = String(input.messageNumber).padStart(6, '0');
  const recipient = escapeXml(input.recipientGln);
  const dataSource = escapeXml(input.dataSourceGln);
  const gtin = escapeXml(gtin14Of(input.primaryKey));
  const market = escapeXml(input.targetMarketCountryCode);
  const state = input.state ?? confirmationStateOf(input.problems);
  const dataPool =
    input.recipientDataPoolGln === undefined
      ? ''
      : `\n          <recipientDataPool>${escapeXml(input.recipientDataPoolGln)}</recipientDataPool>`;
  const details = input.problems.map((problem) => statusDetail(problem, dataSource, gtin, market)).join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<catalogue_item_confirmation:catalogueItemConfirmationMessage
    xmlns:catalogue_item_confirmation="urn:gs1:gdsn:catalogue_item_confirmation:xsd:3"
    xmlns:sh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader">
  <sh:StandardBusinessDocumentHeader>
    <sh:HeaderVersion>1.0</sh:HeaderVersion>
    <sh:Sender><sh:Identifier Authority="GS1">${recipient}</sh:Identifier></sh:Sender>
    <sh:Receiver><sh:Identifier Authority="GS1">${dataSource}</sh:Identifier></sh:Receiver>
    <sh:DocumentIdentification>
      <sh:Standard>GS1</sh:Standard>
      <sh:TypeVersion>3.1</sh:TypeVersion>
      <sh:InstanceIdentifier>CIC-${created.slice(0, 4)}-${number}</sh:InstanceIdentifier>
      <sh:Type>catalogueItemConfirmation</sh:Type>
      <sh:MultipleType>false</sh:MultipleType>
      <sh:CreationDateAndTime>${created}</sh:CreationDateAndTime>
    </sh:DocumentIdentification>
  </sh:StandardBusinessDocumentHeader>
  <transaction>
    <transactionIdentification>
      <entityIdentification>TX-${number}</entityIdentification>
      <contentOwner><gln>${recipient}</gln></contentOwner>
    </transactionIdentification>
    <documentCommand>
      <documentCommandHeader type="ADD">
        <documentCommandIdentification>
          <entityIdentification>DC-${number}</entityIdentification>
          <contentOwner><gln>${recipient}</gln></contentOwner>
        </documentCommandIdentification>
      </documentCommandHeader>
      <catalogue_item_confirmation:catalogueItemConfirmation>
        <creationDateTime>${created}</creationDateTime>
        <documentStatusCode>ORIGINAL</documentStatusCode>
        <catalogueItemConfirmationIdentification>
          <entityIdentification>CICID-${number}</entityIdentification>
          <contentOwner><gln>${recipient}</gln></contentOwner>
        </catalogueItemConfirmationIdentification>
        <catalogueItemConfirmationState>
          <catalogueItemConfirmationStateCode>${state}</catalogueItemConfirmationStateCode>
          <recipientGLN>${recipient}</recipientGLN>${dataPool}
          <messageCreatorGLN>${recipient}</messageCreatorGLN>
        </catalogueItemConfirmationState>
        <catalogueItemReference>
          <dataSource>${dataSource}</dataSource>
          <gtin>${gtin}</gtin>
          <targetMarketCountryCode>${market}</targetMarketCountryCode>
        </catalogueItemReference>${details}
      </catalogue_item_confirmation:catalogueItemConfirmation>
    </documentCommand>
  </transaction>
</catalogue_item_confirmation:catalogueItemConfirmationMessage>
`;
}

function statusDetail(
  problem: ConfirmationProblem,
  dataSource: string,
  gtin: string,
  market: string,
): string {
  const fix =
    problem.attribute === undefined
      ? ''
      : `\n              <expectedCorrectiveInformation>Correct the attribute ${escapeXml(problem.attribute)} and publish again.</expectedCorrectiveInformation>`;
  return `
        <catalogueItemConfirmationStatusDetail>
          <confirmationStatusCatalogueItem>
            <dataSource>${dataSource}</dataSource>
            <gtin>${gtin}</gtin>
            <targetMarketCountryCode>${market}</targetMarketCountryCode>
          </confirmationStatusCatalogueItem>
          <catalogueItemConfirmationStatus>
            <confirmationStatusCode>CIC999</confirmationStatusCode>
            <confirmationStatusCodeDescription languageCode="en">${escapeXml(problem.message)}</confirmationStatusCodeDescription>
            <correctiveAction>
              <correctiveActionCode>ACTION_NEEDED</correctiveActionCode>${fix}
            </correctiveAction>
          </catalogueItemConfirmationStatus>
        </catalogueItemConfirmationStatusDetail>`;
}

/**
 * A GDSN 2.8 CatalogueItemConfirmation, as older data pools send it: the state (e.g. ACCEPTED) is an
 * attribute, the target market nested (the shape of test/fixtures/gdsn/cic-2.8-state-attribute.xml).
 *
 * @example
 * buildCatalogueItemConfirmation28({ ...input, state: 'ACCEPTED' });
 */
export function buildCatalogueItemConfirmation28(
  input: Omit<ConfirmationInput, 'state' | 'problems'> & { state: string },
): string {
  const created = new Date(input.createdAt).toISOString();
  const number = String(input.messageNumber).padStart(6, '0');
  const recipient = escapeXml(input.recipientGln);
  // The header names the recipient as the sender, as a 2.8 message always has one (the shape of
  // test/fixtures/gdsn/cic-2.8-message.xml): the ledger believes a confirmation from its recipient.
  return `<?xml version="1.0" encoding="UTF-8"?>
<sh:StandardBusinessDocument xmlns:sh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader" xmlns:eanucc="urn:ean.ucc:2" xmlns:gdsn="urn:ean.ucc:gdsn:2">
  <sh:StandardBusinessDocumentHeader>
    <sh:HeaderVersion>1.0</sh:HeaderVersion>
    <sh:Sender><sh:Identifier Authority="EAN.UCC">${recipient}</sh:Identifier></sh:Sender>
    <sh:Receiver><sh:Identifier Authority="EAN.UCC">${escapeXml(input.dataSourceGln)}</sh:Identifier></sh:Receiver>
    <sh:DocumentIdentification>
      <sh:Standard>EAN.UCC</sh:Standard>
      <sh:TypeVersion>2.8</sh:TypeVersion>
      <sh:InstanceIdentifier>CIC28-${number}</sh:InstanceIdentifier>
      <sh:Type>catalogueItemConfirmation</sh:Type>
      <sh:CreationDateAndTime>${created}</sh:CreationDateAndTime>
    </sh:DocumentIdentification>
  </sh:StandardBusinessDocumentHeader>
  <eanucc:message>
    <entityIdentification><uniqueCreatorIdentification>CIC28-${number}</uniqueCreatorIdentification></entityIdentification>
    <gdsn:catalogueItemConfirmation>
      <creationDateTime>${created}</creationDateTime>
      <catalogueItemConfirmationState state="${escapeXml(input.state)}">
        <recipientGLN>${recipient}</recipientGLN>
      </catalogueItemConfirmationState>
      <catalogueItemReference>
        <dataSource>${escapeXml(input.dataSourceGln)}</dataSource>
        <gtin>${escapeXml(gtin14Of(input.primaryKey))}</gtin>
        <targetMarket><targetMarketCountryCode><countryISOCode>${escapeXml(input.targetMarketCountryCode)}</countryISOCode></targetMarketCountryCode></targetMarket>
      </catalogueItemReference>
    </gdsn:catalogueItemConfirmation>
  </eanucc:message>
</sh:StandardBusinessDocument>
`;
}

/** What the data pool or a recipient says about one item besides a confirmation. */
export interface ItemMessageInput {
  messageNumber: number;
  /** Epoch milliseconds. */
  createdAt: number;
  primaryKey: string;
  /** GLN of the sender: the data pool (a refusal) or the recipient (a resend request). */
  senderGln: string;
  /** GLN of the data source, i.e. the supplier (the SBDH receiver). */
  dataSourceGln: string;
  /** ISO 3166 numeric. */
  targetMarketCountryCode: string;
}

function header(senderGln: string, receiverGln: string, id: string, type: string, created: string): string {
  return `  <sh:StandardBusinessDocumentHeader>
    <sh:HeaderVersion>1.0</sh:HeaderVersion>
    <sh:Sender><sh:Identifier Authority="GS1">${senderGln}</sh:Identifier></sh:Sender>
    <sh:Receiver><sh:Identifier Authority="GS1">${receiverGln}</sh:Identifier></sh:Receiver>
    <sh:DocumentIdentification>
      <sh:Standard>GS1</sh:Standard>
      <sh:TypeVersion>3.1</sh:TypeVersion>
      <sh:InstanceIdentifier>${id}</sh:InstanceIdentifier>
      <sh:Type>${type}</sh:Type>
      <sh:MultipleType>false</sh:MultipleType>
      <sh:CreationDateAndTime>${created}</sh:CreationDateAndTime>
    </sh:DocumentIdentification>
  </sh:StandardBusinessDocumentHeader>`;
}

/** The error text of the simulator's data-pool refusal (GDSN.1091), for one item. */
export function refusalText(gtin: string, dataSourceGln: string, market: string): string {
  return `GTIN ${gtin} already exists for information provider ${dataSourceGln} in target market ${market}; publish a correction of the registered item instead of a new one.`;
}

/**
 * A GS1 Response (3.1) by which the data pool refuses the publication of one item before it reaches
 * the recipient: status REJECTED, one document-level error GDSN.1091 ("GTIN already exists"), in the
 * shape of test/fixtures/gdsn/gs1-response-3.1-exceptions.xml.
 *
 * @example
 * buildDataPoolRefusal({ messageNumber: 1, createdAt: Date.now(), primaryKey: '614141123452',
 *   senderGln: '0614141000029', dataSourceGln: '0614141000012', targetMarketCountryCode: '276' });
 */
export function buildDataPoolRefusal(input: ItemMessageInput): string {
  const created = new Date(input.createdAt).toISOString();
  const number = String(input.messageNumber).padStart(6, '0');
  const sender = escapeXml(input.senderGln);
  const dataSource = escapeXml(input.dataSourceGln);
  const gtin = gtin14Of(input.primaryKey);
  return `<?xml version="1.0" encoding="UTF-8"?>
<gs1_response:gS1ResponseMessage
    xmlns:gs1_response="urn:gs1:gdsn:gs1_response:xsd:3"
    xmlns:sh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader">
${header(sender, dataSource, `RESP-${created.slice(0, 4)}-${number}`, 'GS1Response', created)}
  <gS1Response>
    <originatingMessageIdentifier>
      <entityIdentification>CIN-${number}</entityIdentification>
      <contentOwner><gln>${dataSource}</gln></contentOwner>
    </originatingMessageIdentifier>
    <receiver>${dataSource}</receiver>
    <sender>${sender}</sender>
    <transactionResponse>
      <transactionIdentifier><entityIdentification>TX-CIN-${number}</entityIdentification><contentOwner><gln>${dataSource}</gln></contentOwner></transactionIdentifier>
      <responseStatusCode>REJECTED</responseStatusCode>
    </transactionResponse>
    <gS1Exception>
      <exceptionMessageTypeCode>GDSN</exceptionMessageTypeCode>
      <transactionException>
        <entityIdentification>TX-CIN-${number}</entityIdentification><contentOwner><gln>${dataSource}</gln></contentOwner>
        <commandException>
          <entityIdentification>DC-CIN-${number}</entityIdentification><contentOwner><gln>${dataSource}</gln></contentOwner>
          <documentException>
            <entityIdentification>CINID-${number}</entityIdentification><contentOwner><gln>${dataSource}</gln></contentOwner>
            <gS1Error>
              <errorCode>GDSN.1091</errorCode>
              <errorDateTime>${created}</errorDateTime>
              <errorDescription languageCode="en">${escapeXml(refusalText(gtin, input.dataSourceGln, input.targetMarketCountryCode))}</errorDescription>
            </gS1Error>
          </documentException>
        </commandException>
      </transactionException>
    </gS1Exception>
  </gS1Response>
</gs1_response:gS1ResponseMessage>
`;
}

/**
 * A RequestForCatalogueItemNotification (3.1) by which the recipient asks for one item to be sent
 * again (`isReload` false), in the shape of test/fixtures/gdsn/rfcin-3.1-reload.xml.
 *
 * @example
 * buildResendRequest({ ...input, senderGln: recipientGln });
 */
export function buildResendRequest(input: ItemMessageInput): string {
  const created = new Date(input.createdAt).toISOString();
  const number = String(input.messageNumber).padStart(6, '0');
  const recipient = escapeXml(input.senderGln);
  const dataSource = escapeXml(input.dataSourceGln);
  return `<?xml version="1.0" encoding="UTF-8"?>
<request_for_catalogue_item_notification:requestForCatalogueItemNotificationMessage
    xmlns:request_for_catalogue_item_notification="urn:gs1:gdsn:request_for_catalogue_item_notification:xsd:3"
    xmlns:sh="http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader">
${header(recipient, dataSource, `RFCIN-${created.slice(0, 4)}-${number}`, 'requestForCatalogueItemNotification', created)}
  <transaction>
    <transactionIdentification><entityIdentification>TX-${number}</entityIdentification><contentOwner><gln>${recipient}</gln></contentOwner></transactionIdentification>
    <documentCommand>
      <documentCommandHeader type="ADD"><documentCommandIdentification><entityIdentification>DC-${number}</entityIdentification></documentCommandIdentification></documentCommandHeader>
      <request_for_catalogue_item_notification:requestForCatalogueItemNotification>
        <creationDateTime>${created}</creationDateTime>
        <documentStatusCode>ORIGINAL</documentStatusCode>
        <catalogueItemSubscriptionIdentification><entityIdentification>RFCIN-${number}</entityIdentification><contentOwner><gln>${recipient}</gln></contentOwner></catalogueItemSubscriptionIdentification>
        <dataRecipient>${recipient}</dataRecipient>
        <dataSource>${dataSource}</dataSource>
        <gtin>${escapeXml(gtin14Of(input.primaryKey))}</gtin>
        <targetMarket><targetMarketCountryCode>${escapeXml(input.targetMarketCountryCode)}</targetMarketCountryCode></targetMarket>
        <isReload>false</isReload>
      </request_for_catalogue_item_notification:requestForCatalogueItemNotification>
    </documentCommand>
  </transaction>
</request_for_catalogue_item_notification:requestForCatalogueItemNotificationMessage>
`;
}
