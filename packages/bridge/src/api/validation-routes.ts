/**
 * POST /validations: an item validated through the PDS, after the request itself was checked (so an
 * invalid request never reaches the PDS).
 */
import { jsonBodyRoute } from './body-route.ts';
import type { ApiRoute } from './route.ts';
import type { RouteContext } from './route-context.ts';
import { PDS_DOWN, PDS_REFUSED } from './route-problems.ts';

/** POST /validations. */
export function validationRoute(context: RouteContext): ApiRoute {
  const { deps, schemas } = context;
  return jsonBodyRoute({
    method: 'POST',
    path: '/validations',
    operationId: 'validateItem',
    summary: 'Validate an item through the PDS',
    body: schemas.validationRequest,
    responses: { 200: { description: 'The PDS validation results.', schema: schemas.validationResponse } },
    problems: {
      400: { types: ['invalid-json'], description: 'The body is empty or not JSON.' },
      422: {
        types: ['validation-failed'],
        description: 'The body has invalid fields, each listed in `errors`; the PDS was not called.',
      },
      502: PDS_REFUSED,
      503: PDS_DOWN,
    },
    async answer(body) {
      const pds = await deps.pds();
      const result = await pds.validate({
        newItem: body.newItem,
        ...(body.oldItem === undefined ? {} : { oldItem: body.oldItem }),
        ...(body.attributeNames === undefined ? {} : { attributeNames: body.attributeNames }),
      });
      return { status: 200, body: result };
    },
  });
}
