/**
 * The route table's model: what a route handler gets and returns, and what each route declares for
 * matching and for the OpenAPI document (./openapi.ts).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from '../core/zod.ts';
import type { ProblemSlug } from './problem.ts';

/** What a route handler gets. */
export interface ApiRequest {
  event: APIGatewayProxyEventV2;
  method: string;
  /** Decoded path parameters of the matched template. */
  params: Record<string, string>;
  /** The authenticated caller (IAM user ARN or `local`); `anonymous` on public routes. */
  caller: string;
  /** Request time. */
  now: Date;
}

/** What a route handler returns; the API serialises it. */
export interface ApiResponse {
  status: number;
  /** Serialised as JSON unless undefined. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** OpenAPI description of one response header: its meaning, and its JSON Schema (default a string). */
export interface HeaderSpec {
  description: string;
  schema?: Record<string, unknown>;
}

/** OpenAPI description of one response of a route. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodMiniType;
  headers?: Record<string, string | HeaderSpec>;
}

/** The problem answers of one status on one route: which types, and what they mean there. */
export interface RouteProblem {
  types: ProblemSlug[];
  description: string;
}

/** OpenAPI description of one parameter of a route. */
export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: z.ZodMiniType;
}

/** One row of the route table: matching, OpenAPI metadata, and the handler. */
export interface ApiRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  /** No authentication (only /health). */
  public?: boolean;
  /** JSON request body, validated with this schema by the handler. */
  body?: z.ZodMiniType;
  parameters?: ParameterSpec[];
  responses: Record<number, ResponseSpec>;
  /**
   * The problem+json answers of this route by status, besides the ones every route may give
   * (401 unauthorized on authenticated routes, 500 internal-error).
   */
  problems: Partial<Record<number, RouteProblem>>;
  handle(request: ApiRequest): Promise<ApiResponse>;
}
