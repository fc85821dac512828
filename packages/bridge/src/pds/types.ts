/**
 * Wire types of the Product Data Service, as docs/pds-interface.md shows them.
 *
 * Fields the spec does not show pass through untyped: every record type allows extra keys so that a
 * newer server never breaks an older client. Choices made where the spec says "not shown" are
 * recorded in docs/spec-gaps.md and implemented the same way by the simulator.
 */

/** Keys the spec does not describe, kept as the server sent them. */
export type Passthrough = { [extra: string]: unknown };

/** One element of the `POST /api/v1/gatherings` answer: one per uploaded file or archive member. */
export interface GatheringEntry extends Passthrough {
  gatheringKey: string;
  assetKey: string;
  path: string;
  /** May be an empty string. */
  contentType: string;
}

export interface ImportRequest {
  gatheringKey: string;
  path: string;
}

/** An item: the system key `primaryKey__` plus the tenant's own attribute names. */
export interface Item extends Passthrough {
  primaryKey__?: string;
}

export interface ValidationRequest {
  oldItem?: Item;
  newItem: Item;
  attributeNames?: string[];
}

export interface ValidationResult extends Passthrough {
  name: string;
  /** `Warning` occurs in the spec; the simulator also uses `Error` (docs/spec-gaps.md). */
  level: string;
  path: string[];
  message: string;
  params: { msg_id: string; err_val: string; err_val_msg: string } & Passthrough;
}

export interface ValidationResponse extends Passthrough {
  validations: Record<string, ValidationResult[]>;
  attributeStates: Record<string, unknown>;
  calculations: Record<string, unknown>;
}

export interface SelectionRequest {
  primaryKeys: string[];
}

export interface Selection extends Passthrough {
  selectionId: string;
  numberOfItems: number;
}

export const DESTINATION_TYPES = ['IN_PLATFORM', 'COMMUNICATION_CHANNEL'] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

export interface Destination {
  destinationType: DestinationType;
  /** Organization ID for IN_PLATFORM, a communication channel ID for COMMUNICATION_CHANNEL. */
  destinationId: string;
}

export interface PublicationRequest {
  selectionId: string;
  destinations: Destination[];
}

/** Shape not shown by the spec; `id` and `name` chosen in docs/spec-gaps.md. */
export interface CommunicationChannel extends Passthrough {
  id: string;
  name: string;
}

export interface SupplierReview extends Passthrough {
  primaryKey: string;
  supplierId: string;
  channelId: string;
  messagingAssetId: number;
  supplier: string;
  reviewer: string;
  /** APPROVED occurs; the set is open. */
  reviewStatus: string;
  /** Epoch milliseconds (docs/spec-gaps.md). */
  date: number;
  comment: string;
  messagingCreatorType: string;
}

/** Element of `GET /api/v1/messaging/messagingassets/`; shape chosen in docs/spec-gaps.md. */
export interface MessagingAssetSummary extends Passthrough {
  id: number;
  /** Epoch milliseconds. */
  createdAt: number;
  contentType: string;
  primaryKey?: string;
  messagingCreatorType?: string;
}
