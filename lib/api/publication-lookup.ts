/**
 * What the routes under `/publications/{publicationId}` share: reading the publication, or answering
 * 404 with the same words and the same documented problem on every one of them.
 */

import { type PublicationRecord, readPublication } from '../publications/records.ts';
import type { StateEntry, StateStore } from '../state/index.ts';
import { ApiProblem } from './problem.ts';
import type { RouteProblem } from './route.ts';

/** The 404 of a route under `/publications/{publicationId}`, for its OpenAPI problems. */
export const PUBLICATION_NOT_FOUND: RouteProblem = {
  types: ['not-found'],
  description: 'No publication has this id.',
};

/**
 * The stored publication, or an ApiProblem `not-found` naming the id.
 *
 * @example
 * ```ts
 * const { value } = await publicationOrNotFound(store, request.params.publicationId as string);
 * ```
 */
export async function publicationOrNotFound(
  store: StateStore,
  publicationId: string,
): Promise<StateEntry<PublicationRecord>> {
  const stored = await readPublication(store, publicationId);
  if (!stored) {
    throw new ApiProblem(
      'not-found',
      `No publication ${publicationId}; use the publicationId POST /publications answered`,
    );
  }
  return stored;
}
