/**
 * The items of the item-bearing messages: a confirmation (CIC), a resend request (RFCIN), a
 * hierarchical withdrawal (CIHW) and a notification (CIN) with its hierarchy, read as
 * CatalogueItemConfirmation.xsd, RequestForCatalogueItemNotification.xsd (on
 * CatalogueItemSubscription.xsd), CatalogueItemHierarchicalWithdrawal.xsd and
 * CatalogueItemNotification.xsd (3.1.35 or later) and real 2.8 traffic write them.
 */
import type { CicSummary } from '../cic.ts';
import { attributeOf, child, children, type XmlElement } from '../document.ts';
import {
  elementOrAttribute,
  findAll,
  flag,
  glnOf,
  gtinOf,
  optionalText,
  recipientOf,
  recipientsOf,
  referenceOf,
  SEARCH_DEPTH,
  targetMarketOf,
  withoutUndefined,
} from './read.ts';
import type { GdsnItem, GdsnMessageSummary } from './types.ts';

export function confirmationItems(summaries: readonly CicSummary[]): GdsnItem[] {
  return summaries.map((cic) =>
    withoutUndefined<GdsnItem>({
      gtin: cic.gtin,
      informationProvider: cic.dataSource,
      targetMarketCountryCode: cic.targetMarketCountryCode,
      recipientGln: cic.recipientGln,
      status: cic.state,
    }),
  );
}

/**
 * What a resend request asks for (the subscription's criteria, at least one present): a GTIN
 * (`gtin`, 2.8 `gTIN`), an information provider, a GPC category, a target market, and whether it is a
 * reload and why. A request for a category or a provider names no item: the summary says so with
 * `gpcCategoryCode` / `informationProvider` and no items, never "everything".
 */
export function requestSummary(
  element: XmlElement,
): Pick<
  GdsnMessageSummary,
  | 'isReload'
  | 'isReloadReasonCode'
  | 'recipientGln'
  | 'recipientDataPool'
  | 'informationProvider'
  | 'gpcCategoryCode'
  | 'targetMarketCountryCode'
> {
  return withoutUndefined({
    isReload: flag(element, 'isReload'),
    isReloadReasonCode: elementOrAttribute(element, 'isReloadReasonCode'),
    recipientGln: recipientOf(element),
    recipientDataPool: glnOf(child(element, 'recipientDataPool')),
    informationProvider: glnOf(child(element, 'dataSource')),
    gpcCategoryCode: elementOrAttribute(element, 'gpcCategoryCode'),
    targetMarketCountryCode: targetMarketOf(element),
  });
}

/** The items a resend request names (none: it asks by category, provider or market). */
export function requestItems(element: XmlElement): GdsnItem[] {
  const isReload = flag(element, 'isReload');
  const recipientGln = recipientOf(element);
  const extra = withoutUndefined({ recipientGln, isReload });
  const direct = referenceOf(element);
  const references = findAll(element, new Set(['catalogueItemReference']), 3)
    .map(referenceOf)
    .filter((item): item is GdsnItem => item !== undefined);
  return [...(direct ? [direct] : []), ...references].map((item) => ({ ...item, ...extra }));
}

/** A withdrawal's item with every recipient, its state, dates, reason and source data pool. */
export function withdrawalItems(element: XmlElement): GdsnItem[] {
  const reasonCode =
    elementOrAttribute(element, 'hierarchyDeletionReasonCode') ??
    elementOrAttribute(element, 'catalogueItemDeletionReasonCode');
  const description = child(element, 'hierarchyDeletionAdditionalReasonDescription');
  const recipients = recipientsOf(element);
  const fallbackRecipient = recipients[0] ?? recipientOf(element);
  const details = withoutUndefined<Partial<GdsnItem>>({
    recipientGln: fallbackRecipient,
    recipientGlns: recipients.length === 0 ? undefined : recipients,
    sourceDataPool: glnOf(child(element, 'sourceDataPool')),
    reasonCode,
    reasonDescription: optionalText(description) ?? attributeOf(description, 'text'),
    stateCode: elementOrAttribute(element, 'catalogueItemStateCode'),
    cancelDateTime: elementOrAttribute(element, 'cancelDateTime'),
    discontinueDateTime: elementOrAttribute(element, 'discontinueDateTime'),
  });
  return findAll(element, new Set(['catalogueItemReference']), 3)
    .map(referenceOf)
    .filter((item): item is GdsnItem => item !== undefined)
    .map((item) => withoutUndefined<GdsnItem>({ ...item, ...details }));
}

/** The information provider of a trade item, in the 3.1 or the 2.8 form. */
function providerOf(catalogueItem: XmlElement, tradeItem: XmlElement | undefined): string | undefined {
  const information = child(tradeItem, 'tradeItemInformation');
  return (
    glnOf(child(tradeItem, 'informationProviderOfTradeItem')) ??
    glnOf(child(child(information ?? tradeItem, 'informationProviderOfTradeItem'), 'informationProvider')) ??
    glnOf(child(catalogueItem, 'dataSource'))
  );
}

/**
 * The item's state (`catalogueItemState`): 3.1 elements `catalogueItemStateCode`, `cancelDateTime`,
 * `discontinueDateTime`; 2.8 attributes `state`, `cancelDate`, `discontinueDate`.
 */
function stateOf(catalogueItem: XmlElement): Partial<GdsnItem> {
  const state = child(catalogueItem, 'catalogueItemState');
  return withoutUndefined({
    stateCode: elementOrAttribute(state, 'catalogueItemStateCode') ?? elementOrAttribute(state, 'state'),
    cancelDateTime: elementOrAttribute(state, 'cancelDateTime') ?? elementOrAttribute(state, 'cancelDate'),
    discontinueDateTime:
      elementOrAttribute(state, 'discontinueDateTime') ?? elementOrAttribute(state, 'discontinueDate'),
  });
}

/** A catalogue item (CIN): its trade item, then each child catalogue item, depth first. */
export function notificationItems(notification: XmlElement, documentCommand: string | undefined): GdsnItem[] {
  const isReload = flag(notification, 'isReload');
  const items: GdsnItem[] = [];
  const visit = (catalogueItem: XmlElement, depth: number): void => {
    if (depth > SEARCH_DEPTH) return;
    const tradeItem = child(catalogueItem, 'tradeItem');
    const gtin = gtinOf(tradeItem);
    const links = children(catalogueItem, 'catalogueItemChildItemLink');
    if (gtin !== undefined) {
      // 3.1 links each child with its quantity; 2.8 lists the next lower level in the trade item.
      const linked = links.flatMap((link) =>
        children(link, 'catalogueItem').map((nested) =>
          withoutUndefined({
            gtin: gtinOf(child(nested, 'tradeItem')) ?? '',
            quantity: elementOrAttribute(link, 'quantity'),
          }),
        ),
      );
      const listed = children(child(tradeItem, 'nextLowerLevelTradeItemInformation'), 'childTradeItem').map(
        (childItem) =>
          withoutUndefined({
            gtin: gtinOf(childItem) ?? '',
            // 3.1 TradeItem.xsd writes quantityOfNextLowerLevelTradeItem, 2.8 quantityofNextLowerLevelTradeItem.
            quantity:
              elementOrAttribute(childItem, 'quantityofNextLowerLevelTradeItem') ??
              elementOrAttribute(childItem, 'quantityOfNextLowerLevelTradeItem'),
          }),
      );
      const childItems = (linked.length > 0 ? linked : listed).filter((one) => one.gtin !== '');
      items.push(
        withoutUndefined<GdsnItem>({
          gtin,
          informationProvider: providerOf(catalogueItem, tradeItem),
          targetMarketCountryCode:
            targetMarketOf(tradeItem) ?? targetMarketOf(child(tradeItem, 'tradeItemInformation')),
          recipientGln: recipientOf(catalogueItem) ?? recipientOf(notification),
          sourceDataPool: glnOf(child(catalogueItem, 'sourceDataPool')),
          ...stateOf(catalogueItem),
          documentCommand,
          isReload,
          childGtins: childItems.length === 0 ? undefined : childItems.map((one) => one.gtin),
          childItems: childItems.some((one) => one.quantity !== undefined) ? childItems : undefined,
        }),
      );
    }
    for (const link of links) {
      for (const nested of children(link, 'catalogueItem')) visit(nested, depth + 1);
    }
  };
  for (const catalogueItem of children(notification, 'catalogueItem')) visit(catalogueItem, 0);
  return items;
}

/** The document command (`documentCommandHeader/@type`) of the command holding `document`. */
export function commandsByDocument(root: XmlElement, name: string): Map<XmlElement, string> {
  const commands = new Map<XmlElement, string>();
  for (const command of findAll(root, new Set(['documentCommand']))) {
    const type = attributeOf(child(command, 'documentCommandHeader'), 'type');
    if (type === undefined) continue;
    for (const document of findAll(command, new Set([name]), 3)) commands.set(document, type);
  }
  return commands;
}
