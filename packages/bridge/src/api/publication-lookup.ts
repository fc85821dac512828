/**
 * What the routes under `/publications/{publicationId}` share: reading the publication, or answering
 * 404 with the same words and the same documented problem on every one of them.
 */

import { type PublicationRecord, readPublication } from '../publications/records.ts';
import type { StateEntry, StateStore } from '../state/index.ts';
import { ApiProblem } from './problem.ts';
import type { ApiResponse, ApiRoute, RouteProblem } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { lookupProblems, pathParameter } from './route-problems.ts';

/** The 404 of a route under `/publications/{publicationId}`, for its OpenAPI problems. */
const PUBLICATION_NOT_FOUND: RouteProblem = {
  types: ['not-found'],
  description: 'No publication has this id.',
};

/** The stored publication, or an ApiProblem `not-found` naming the id. */
async function publicationOrNotFound(
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

/** What a GET route under `/publications/{publicationId}` declares itself, and how it answers from the publication. */
export type PublicationReadSpec = Omit<ApiRoute, 'method' | 'parameters' | 'problems' | 'handle'> & {
  /** The answer from the publication stored under `publicationId` (the path's, decoded). */
  answer(publication: PublicationRecord, publicationId: string): Promise<ApiResponse> | ApiResponse;
};

/**
 * A GET route that answers from one stored publication: the `publicationId` path parameter, the
 * publication read before `answer` runs, and the lookup problems (400, the 404 above, 503).
 *
 * @example
 * ```ts
 * publicationReadRoute(context, {
 *   path: '/publications/{publicationId}',
 *   operationId: 'getPublication',
 *   summary: 'Status and outcome of a publication',
 *   responses: { 200: { description: 'The publication.', schema: schemas.publication } },
 *   answer: (publication) => ({ status: 200, body: publicationView(publication) }),
 * });
 * ```
 */
export function publicationReadRoute(context: RouteContext, spec: PublicationReadSpec): ApiRoute {
  const { answer, ...declared } = spec;
  return {
    method: 'GET',
    ...declared,
    parameters: pathParameter('publicationId', context.parameters.publicationId),
    problems: lookupProblems(PUBLICATION_NOT_FOUND),
    async handle(request) {
      const publicationId = request.params.publicationId as string;
      const stored = await publicationOrNotFound(context.store, publicationId);
      return answer(stored.value, publicationId);
    },
  };
}
