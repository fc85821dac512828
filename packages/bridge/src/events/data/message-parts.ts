/**
 * The parts of a message both received events carry: the parsed document or why it could not be
 * parsed, the GDSN summaries (packages/bridge/src/xml/gdsn.ts), and why a message is absent.
 */
import { once } from '../../core/lazy.ts';
import * as z from '../../core/zod.ts';
import { described } from '../../core/zod.ts';
import { httpStatus, nonEmpty, optionalText } from './fields.ts';

// The descriptions below reach consumers: they are the `description`s of the JSON Schemas in
// schemas/events (npm run schemas). Say what a field means to a reader of the event.
export const xmlErrorInfo = once(() =>
  described(
    z.object({
      name: described(nonEmpty(), 'The error class, e.g. XmlParseError.'),
      code: optionalText('A stable code for the kind of error, e.g. MALFORMED.'),
      message: described(nonEmpty(), 'What is wrong with the XML, for people.'),
      line: described(
        z.optional(z.number().check(z.int(), z.gt(0))),
        'Line of the error in the XML, from 1.',
      ),
      column: described(
        z.optional(z.number().check(z.int(), z.gt(0))),
        'Column of the error in the XML, from 1.',
      ),
    }),
    'Why the XML could not be parsed; the text itself is in rawXml or rawXmlPointer.',
  ),
);

export const parsedDocument = once(() =>
  described(
    z.object({
      rootName: described(nonEmpty(), 'Local name of the root element, namespace prefix removed.'),
      rootNamespace: optionalText('Namespace URI of the root element, when it has one.'),
      namespaces: described(
        z.record(z.string(), z.string()),
        'The namespace declarations of the root element: prefix to URI.',
      ),
      root: described(
        z.record(z.string(), z.unknown()),
        'The root element: every child element an array of objects, attributes under "@_<name>", text under "#text", every value a string, namespace prefixes removed.',
      ),
    }),
    "The messaging asset's XML, parsed (lib/xml/parse.ts).",
  ),
);

export const cicSummary = once(() =>
  described(
    z.object({
      gdsnVersion: described(z.enum(['3.1', '2.8']), 'The GDSN version the confirmation is written in.'),
      state: described(
        nonEmpty(),
        'The confirmation state: RECEIVED, REVIEW, REJECTED, SYNCHRONISED (3.1) or ACCEPTED, … (2.8); the set is open.',
      ),
      gtin: described(nonEmpty(), 'The GTIN of the confirmed item.'),
      recipientGln: optionalText('GLN of the recipient that confirms.'),
      recipientDataPool: optionalText("GLN of the recipient's data pool."),
      dataSource: optionalText("GLN of the item's information provider."),
      targetMarketCountryCode: optionalText(
        'ISO 3166 numeric code of the target market, e.g. 276 (Germany).',
      ),
      documentIdentifier: optionalText(
        "The Standard Business Document Header's InstanceIdentifier (one per message).",
      ),
      confirmationIdentifier: optionalText(
        "The confirmation's own identification (entityIdentification in 3.1, uniqueCreatorIdentification in 2.8).",
      ),
      creationDateTime: optionalText(
        'When the confirmation (else the message) was created, as written in the XML: the creationDateTime element (3.1) or attribute (2.8).',
      ),
      creatorGln: optionalText(
        "GLN of the confirmation's creator: its identification's content owner, else the message's sender.",
      ),
      messageCreatorGln: optionalText(
        "GLN of the system that wrote the confirmation: messageCreatorGLN (3.1; the recipient or a data pool writing for it), in 2.8 the content owner of the message's identification. Never the header's sender.",
      ),
      messageCreatorName: optionalText('messageCreatorName (3.1), as written.'),
      truncated: truncation(),
      statuses: described(
        z.array(
          z.object({
            code: described(z.string(), 'The confirmation status code, e.g. CIC999.'),
            gtin: optionalText('The GTIN the status is about, when it names one.'),
            descriptions: z.array(z.object({ languageCode: z.optional(z.string()), text: z.string() })),
            longDescriptions: described(
              z.optional(z.array(z.object({ languageCode: z.optional(z.string()), text: z.string() }))),
              'The additionalConfirmationStatusLongDescription texts: where recipients put the full reason.',
            ),
            correctiveActions: z.array(
              z.object({ code: z.string(), expectedCorrectiveInformation: z.optional(z.string()) }),
            ),
          }),
        ),
        'The statuses the recipient gave, with their descriptions and corrective actions.',
      ),
    }),
    'Summary of one GDSN CatalogueItemConfirmation in the message.',
  ),
);

/** What the caps of a summary left out (docs/events.md lists the caps). */
export const truncation = once(() =>
  described(
    z.optional(
      z.object({
        items: count('Items (and confirmations) left out.'),
        errors: count('Errors left out.'),
        transactions: count('Transaction statuses left out.'),
        gtins: count("GTINs left out of errors' gtins, all errors together."),
        recipients: count("Recipients left out of items' recipientGlns."),
        statuses: count('Statuses, descriptions and corrective actions left out.'),
        texts: count('Texts cut to 1,000 characters (each ends with "… (N more characters left out)").'),
      }),
    ),
    'Present when a cap left something out: how many of each kind (docs/events.md, the caps of a GDSN summary). The whole message is in document (or behind the claim-check pointer).',
  ),
);

function count(description: string) {
  return described(z.optional(z.number().check(z.int(), z.gt(0))), description);
}

export const gdsnItem = once(() =>
  z.object({
    gtin: described(nonEmpty(), 'GTIN of the item the message names.'),
    informationProvider: optionalText("GLN of the item's information provider."),
    targetMarketCountryCode: optionalText('ISO 3166 numeric code of the target market.'),
    recipientGln: optionalText('GLN of the recipient the message is about (the first, when several).'),
    recipientGlns: described(
      z.optional(z.array(z.string())),
      'A withdrawal: every recipient it is sent to (dataRecipient, repeated), at most 100.',
    ),
    sourceDataPool: optionalText('A withdrawal or a notification: GLN of the data pool the item comes from.'),
    status: optionalText('A confirmation state or a registration status for this item, as written.'),
    registrationDateTime: optionalText(
      'A registration response: when the Global Registry registered the item.',
    ),
    lastChangedDateTime: optionalText('A registration response: when the registration last changed.'),
    reasonCode: optionalText("A withdrawal's reason code, e.g. PUBLICATION_WITHDRAWAL."),
    reasonDescription: optionalText(
      "A withdrawal's reason in words (hierarchyDeletionAdditionalReasonDescription).",
    ),
    stateCode: optionalText(
      'A withdrawal or a notification: the item state (CANCELED, DISCONTINUED, IN_PROGRESS, REGISTERED), as written.',
    ),
    cancelDateTime: optionalText('A withdrawal or a notification: when the item is or was cancelled.'),
    discontinueDateTime: optionalText(
      'A withdrawal or a notification: when the item is or was discontinued.',
    ),
    documentCommand: optionalText(
      "A notification's document command: ADD, CHANGE_BY_REFRESH, CORRECT, DELETE.",
    ),
    isReload: described(z.optional(z.boolean()), 'A notification or request: whether it is a reload.'),
    childGtins: described(
      z.optional(z.array(z.string())),
      "A notification: GTINs of the next lower level of the item's hierarchy.",
    ),
    childItems: described(
      z.optional(z.array(z.object({ gtin: z.string(), quantity: z.optional(z.string()) }))),
      'A notification: the next lower level with the quantity of each child, when the message gives quantities.',
    ),
  }),
);

export const gdsnSummary = once(() =>
  described(
    z.optional(
      z.object({
        messageType: described(
          z.enum([
            'catalogueItemConfirmation',
            'gs1Response',
            'catalogueItemRegistrationResponse',
            'requestForCatalogueItemNotification',
            'catalogueItemHierarchicalWithdrawal',
            'catalogueItemNotification',
          ]),
          'The GDSN message type (docs/events.md lists what each says). The set may grow: treat an unknown value as a generic document.',
        ),
        gdsnVersion: described(z.enum(['3.1', '2.8']), 'The GDSN version the message is written in.'),
        documentIdentifier: optionalText("The Standard Business Document Header's InstanceIdentifier."),
        creationDateTime: optionalText("The message's own creation time, as written."),
        senderGln: optionalText(
          "GLN of the sender as the Standard Business Document Header's Sender/Identifier says (a data pool, the Global Registry, a recipient); nothing else stands in for it.",
        ),
        receiverGln: optionalText('GLN of the receiver.'),
        messageCreatorGln: optionalText(
          "GLN of the party that wrote the content: a confirmation's messageCreatorGLN, else the content owner of the business document's identification (2.8: of the message's).",
        ),
        messageCreatorName: optionalText("A confirmation's messageCreatorName (3.1), as written."),
        status: optionalText(
          "Responses: REJECTED when a transaction was refused, else the transactions' status (ACCEPTED, RECEIVED, …), else the status the response writes on itself (2.8), as written.",
        ),
        originalMessageIdentifier: optionalText(
          'Responses: the identifier of the message answered (the first).',
        ),
        transactions: described(
          z.optional(
            z.array(
              z.object({
                transactionIdentifier: optionalText('The transaction answered.'),
                status: described(z.string(), 'Its status: ACCEPTED, RECEIVED, REJECTED, …, as written.'),
                originalMessageIdentifier: optionalText('The message the transaction belongs to.'),
              }),
            ),
          ),
          'Responses (3.1): each transaction answered with its own status (transactionResponse), in document order, at most 200.',
        ),
        errors: described(
          z.optional(
            z.array(
              z.object({
                code: described(z.string(), 'The error code, e.g. GDSN.1091; empty when none was given.'),
                description: optionalText('The error text, as the sender wrote it.'),
                languageCode: optionalText('The language of the description.'),
                errorDateTime: optionalText('When the error was raised, as written.'),
                exceptionMessageType: optionalText(
                  "The exception's message type (exceptionMessageTypeCode, e.g. GDSN).",
                ),
                originalMessageIdentifier: optionalText(
                  'The message answered by the response holding this error.',
                ),
                attributeName: optionalText('An attribute exception: the attribute refused.'),
                attributeValue: optionalText('An attribute exception: the value refused.'),
                xPath: optionalText(
                  'An attribute exception: where the attribute is in the message answered.',
                ),
                level: described(
                  z.enum(['message', 'transaction', 'command', 'document', 'attribute']),
                  'Where the error was raised.',
                ),
                transactionIdentifier: optionalText('The transaction the error refers to.'),
                commandIdentifier: optionalText('The command the error refers to.'),
                documentIdentifier: optionalText('The document the error refers to.'),
                gtins: described(
                  z.optional(z.array(z.string())),
                  'GTINs the error itself names (its text, the value of a GTIN attribute), at most 10; every GTIN of the response is listed once in items.',
                ),
              }),
            ),
          ),
          "Responses: every error of the responses' exceptions in document order, each exception's parents before its children, at most 200.",
        ),
        refusal: described(
          z.optional(z.boolean()),
          'True when the message says a publication was refused before it reached the recipient (a response with errors or a refused transaction, a registration REJECTED).',
        ),
        isReload: described(
          z.optional(z.boolean()),
          'Resend requests: true for a reload of everything, false for a resend of the items named.',
        ),
        isReloadReasonCode: optionalText('Resend requests: why a reload is asked (isReloadReasonCode).'),
        recipientGln: optionalText('Resend requests: the recipient asking.'),
        recipientDataPool: optionalText("Resend requests: the recipient's data pool."),
        informationProvider: optionalText('Resend requests: the information provider asked about.'),
        gpcCategoryCode: optionalText(
          'Resend requests: the GPC category asked about; a request for a category names no item.',
        ),
        targetMarketCountryCode: optionalText('Resend requests: the target market asked about.'),
        items: described(
          z.array(gdsnItem()),
          'The items the message names, in document order, each GTIN of a response once, at most 1,000.',
        ),
        truncated: truncation(),
      }),
    ),
    'What the GDSN message is and says, for every GDSN type the bridge knows (lib/xml/gdsn.ts); absent for other documents.',
  ),
);

export const cicList = once(() =>
  described(
    z.optional(z.array(cicSummary())),
    'One summary per GDSN CatalogueItemConfirmation in the document, at most 1,000 (gdsn.truncated.items counts the rest).',
  ),
);

export const rawXml = once(() =>
  optionalText('The XML as received, when it could not be parsed (parseError).'),
);

export const notBoth = (data: { document?: unknown; parseError?: unknown }) =>
  data.document === undefined || data.parseError === undefined;

export const messageError = once(() =>
  described(
    z.object({
      name: described(nonEmpty(), 'The error class, e.g. PdsNotFoundError.'),
      message: described(nonEmpty(), 'The last reason, for people.'),
      status: described(z.optional(httpStatus()), 'HTTP status the PDS answered, when it answered one.'),
      failedRuns: described(
        z.optional(z.number().check(z.int(), z.gt(0))),
        'Consecutive runs that failed before the poller passed the item (POLL_FAILURE_LIMIT).',
      ),
    }),
    'Why the event carries no message: the PDS refused it for good (e.g. 404), or fetching or sending it failed on POLL_FAILURE_LIMIT consecutive runs and the poller passed it.',
  ),
);
