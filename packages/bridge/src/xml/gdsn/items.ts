/**
 * The items of the item-bearing messages: a confirmation (CIC), a resend request (RFCIN), a
 * hierarchical withdrawal and a notification (CIN) with its hierarchy.
 */
import { type CicSummary, summariseCatalogueItemConfirmation } from '../cic.ts';
import { attributeOf, child, children, type ParsedDocument, type XmlElement } from '../document.ts';
import {
  elementOrAttribute,
  findAll,
  flag,
  glnOf,
  gtinOf,
  recipientOf,
  referenceOf,
  SEARCH_DEPTH,
  targetMarketOf,
  withoutUndefined,
} from './read.ts';
import type { GdsnItem } from './types.ts';

export function confirmationItems(
  document: ParsedDocument,
  known: readonly CicSummary[] | undefined,
): GdsnItem[] {
  return (known ?? summariseCatalogueItemConfirmation(document) ?? []).map((cic) =>
    withoutUndefined<GdsnItem>({
      gtin: cic.gtin,
      informationProvider: cic.dataSource,
      targetMarketCountryCode: cic.targetMarketCountryCode,
      recipientGln: cic.recipientGln,
      status: cic.state,
    }),
  );
}

/** The items a resend request names (none: it asks for everything the recipient subscribed to). */
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

export function withdrawalItems(element: XmlElement): GdsnItem[] {
  const reasonCode =
    elementOrAttribute(element, 'hierarchyDeletionReasonCode') ??
    elementOrAttribute(element, 'catalogueItemDeletionReasonCode');
  const recipientGln = recipientOf(element);
  return findAll(element, new Set(['catalogueItemReference']), 3)
    .map(referenceOf)
    .filter((item): item is GdsnItem => item !== undefined)
    .map((item) => withoutUndefined<GdsnItem>({ ...item, recipientGln, reasonCode }));
}

/** A catalogue item (CIN): its trade item, then each child catalogue item, depth first. */
export function notificationItems(notification: XmlElement, documentCommand: string | undefined): GdsnItem[] {
  const isReload = flag(notification, 'isReload');
  const items: GdsnItem[] = [];
  const visit = (catalogueItem: XmlElement, depth: number): void => {
    if (depth > SEARCH_DEPTH) return;
    const tradeItem = child(catalogueItem, 'tradeItem');
    const gtin = gtinOf(tradeItem);
    const information = child(tradeItem, 'tradeItemInformation');
    if (gtin !== undefined) {
      const childGtins = children(child(tradeItem, 'nextLowerLevelTradeItemInformation'), 'childTradeItem')
        .map(gtinOf)
        .filter((value): value is string => value !== undefined);
      const provider =
        glnOf(child(tradeItem, 'informationProviderOfTradeItem')) ??
        glnOf(
          child(child(information ?? tradeItem, 'informationProviderOfTradeItem'), 'informationProvider'),
        ) ??
        glnOf(child(catalogueItem, 'dataSource'));
      items.push(
        withoutUndefined<GdsnItem>({
          gtin,
          informationProvider: provider,
          targetMarketCountryCode: targetMarketOf(tradeItem) ?? targetMarketOf(information),
          recipientGln: recipientOf(catalogueItem) ?? recipientOf(notification),
          documentCommand,
          isReload,
          childGtins: childGtins.length === 0 ? undefined : childGtins,
        }),
      );
    }
    for (const link of children(catalogueItem, 'catalogueItemChildItemLink')) {
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
